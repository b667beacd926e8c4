/**
 * One line for a listener the quick start cannot open, naming the setting to change, or
 * undefined for any other error (ADR 0080). The quick start prints it as a configuration error.
 */
export function explainListenFailure(error: unknown, address: string, port: number): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `${address.includes(':') ? `[${address}]` : address}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return (
        `cannot listen on ${where}: the port is already in use (another Certlane quick start?); ` +
        `stop that program or set SERVICE_PORT to a free port`
      );
    case 'EACCES':
      return (
        `cannot listen on ${where}: permission denied (ports below 1024 need root); ` +
        `set SERVICE_PORT to a port above 1023`
      );
    case 'EADDRNOTAVAIL':
      return (
        `cannot listen on ${where}: the address is not one of this machine's; ` +
        `set SERVICE_LISTEN_ADDRESS to one of its addresses, or 0.0.0.0 for all`
      );
    default:
      return undefined;
  }
}
