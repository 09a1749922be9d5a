/**
 * A client that never connects and never exits, for the gauntlet's tests: it writes its pid to
 * the file its first argument names and waits forever, ignoring SIGTERM.
 */
import { writeFileSync } from "node:fs";

writeFileSync(process.argv[2]!, String(process.pid));
process.on("SIGTERM", () => undefined);
setInterval(() => undefined, 1 << 30);
