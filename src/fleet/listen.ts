/**
 * Where a fleet server listens: 127.0.0.1 only, on the port asked for when it is free, else on
 * any free port. The demo asks for the same ports every run so that its report, which names each
 * server by its URL, reads the same twice; tests ask for none and get whatever is free. Closed,
 * a fleet server ends its connections too: an endless answer must not hold it open.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

export async function listenLoopback(server: Server, preferredPort = 0): Promise<number> {
  if (preferredPort > 0) {
    try {
      return await listenOn(server, preferredPort);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE" && (e as NodeJS.ErrnoException).code !== "EACCES") throw e;
    }
  }
  return listenOn(server, 0);
}

function listenOn(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stops listening and ends every connection, endless answers included. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
