/**
 * @grpc/grpc-js, under the built-in clients' gRPC calls, names the peer's IP address as the TLS server
 * name, and Node warns of it (DEP0123) on stderr, where it reads as a problem of the run: it is
 * neither the harness's nor the client under test's to fix. That one warning is dropped, every other
 * kept. bin/a2a-conformance.mjs does the same for the main thread before anything loads; a lane's
 * worker thread has a `process` of its own and calls this.
 */
export function dropGrpcServernameWarning(): void {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const code = rest[0] && typeof rest[0] === 'object' ? (rest[0] as { code?: string }).code : rest[1];
    if (code === 'DEP0123') return;
    return (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
}
