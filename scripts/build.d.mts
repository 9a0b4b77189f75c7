/** The entry points of the bundle, relative to dist/ (scripts/build.mjs). */
export declare const ENTRIES: string[];
/** Packages loaded as installed, not bundled. */
export declare const EXTERNAL: string[];
export declare function build(): Promise<void>;
