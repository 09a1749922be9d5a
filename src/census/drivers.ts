/**
 * The census's database drivers, `better-sqlite3` (SQLite) and `pg` (PostgreSQL), are optional
 * peers of the package: a program that only decodes or connects installs neither (nor compiles
 * SQLite). They are looked for here, when a census, report or prune opens its database, so that
 * a missing one is a line naming the command that installs it rather than a module-resolution
 * stack.
 */
import { DriverMissing } from "./store.js";

export type Driver = "better-sqlite3" | "pg";

const ENGINE: Record<Driver, string> = { "better-sqlite3": "SQLite", pg: "PostgreSQL" };

/** How to install a driver, beside a local or a global mcp-wire. */
function install(driver: Driver): string {
  return `npm install ${driver} (npm install -g ${driver} beside a global mcp-wire)`;
}

/** Whether `e` says that `driver` itself (not something it needs) could not be found. */
function notFound(e: unknown, driver: Driver): boolean {
  const { code, message } = e as NodeJS.ErrnoException;
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    typeof message === "string" &&
    (message.includes(`'${driver}'`) || message.includes(`"${driver}"`))
  );
}

/**
 * Loads `driver`, or throws DriverMissing saying how to install it. better-sqlite3 is opened on
 * an in-memory database too: installed with `--ignore-scripts` it has no native part, which it
 * would otherwise report only at the first open, in several lines of searched paths.
 */
export async function requireDriver(driver: Driver): Promise<void> {
  const missing = `the ${ENGINE[driver]} driver ${driver} is not installed (mcp-wire installs it only where a census runs): ${install(driver)}`;
  let loaded: unknown;
  try {
    loaded = await import(driver);
  } catch (e) {
    if (notFound(e, driver)) throw new DriverMissing(missing, { cause: e });
    throw e;
  }
  if (driver !== "better-sqlite3") return;
  const Database = (loaded as { default: new (file: string) => { close(): void } }).default;
  try {
    new Database(":memory:").close();
  } catch (e) {
    const said = (e instanceof Error ? e.message : String(e)).split("\n")[0];
    throw new DriverMissing(
      `the SQLite driver better-sqlite3 is installed but cannot be loaded (${said}); was it installed with --ignore-scripts? npm rebuild better-sqlite3`,
      { cause: e },
    );
  }
}
