/**
 * A scenario's own expectations beyond its rule: the declarative assertions an author may add
 * (docs/scenarios.md, "Assertions"), graded from the wire as checks of their own (`VENDOR:<id>`).
 */
import type { Operation } from './runtime.js';

/** The request headers the transcript keeps, so an assertion can name them. */
export const ASSERTABLE_HEADERS = ['A2A-Version', 'A2A-Extensions', 'Authorization', 'Accept', 'Content-Type'] as const;

interface AssertionBase {
  /** A short name, unique in the scenario: the check is `VENDOR:<id>`. */
  id: string;
  /** Why, in the author's words (the incident, the requirement): shown as the check's source. */
  because: string;
  /** The verdict of a miss (default FAIL). */
  onMiss?: 'FAIL' | 'NON_STRICT';
}

/** One of the declarative checks a scenario may carry. */
export type Assertion = AssertionBase &
  (
    | { kind: 'no-task' }
    | { kind: 'max-tasks'; max: number }
    | { kind: 'never-calls'; method: Operation }
    | { kind: 'calls'; method: Operation; before?: Operation | Operation[] }
    | { kind: 'header'; name: (typeof ASSERTABLE_HEADERS)[number]; method?: Operation; equals?: string }
    | { kind: 'saw-state'; state: string }
  );
