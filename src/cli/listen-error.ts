/** Why a command could not listen on an address (`serve --http`, `tap --listen`), in a person's words. */

/** `cannot listen on 127.0.0.1:8080: the port is in use; …`, without errno names. */
export function cannotListen(host: string, port: number, e: unknown): string {
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  switch ((e as NodeJS.ErrnoException | undefined)?.code) {
    case "EADDRINUSE":
      return `cannot listen on ${where}: the port is in use by another program; stop it, or pick another port (0: any free one)`;
    case "EACCES":
    case "EPERM":
      return `cannot listen on ${where}: permission denied (ports below 1024 need privileges); pick a port above 1023`;
    case "EADDRNOTAVAIL":
      return `cannot listen on ${where}: ${host} is not an address of this machine`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `cannot listen on ${where}: ${host} does not resolve`;
    default: {
      const message = e instanceof Error ? e.message : String(e);
      return `cannot listen on ${where}: ${message.split("\n")[0]!.replace(/^listen \w+: /, "")}`;
    }
  }
}
