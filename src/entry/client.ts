/**
 * mcp-wire/client: the dual-era MCP client, opened on a stdio server it starts (`ChildServer`)
 * or on a remote one (`connectHttp`), and the handlers that answer what a server asks of it.
 * See docs/library.md.
 */
export { McpClient } from "../mcp/client.js";
export type {
  ClientOptions,
  Connector,
  ConnectStep,
  CallToolOptions,
  CallToolTaskOptions,
  ListMethod,
  ListOptions,
  ListResults,
} from "../mcp/client.js";
export { MethodNotInRevisionError } from "../mcp/methods.js";
export type {
  IfAnyTasks,
  IfLegacy,
  IfModern,
  IfTasks,
  LegacyRevision,
  ModernRevision,
  TaskRevision,
} from "../mcp/methods.js";
export {
  TaskCancelledError,
  TasksNotNegotiatedError,
  DEFAULT_POLL_INTERVAL,
  DEFAULT_TASK_TIMEOUT,
} from "../mcp/task-client.js";
export type {
  AnyTask,
  CancelTaskResultOf,
  CreateTaskResultOf,
  LegacyCreateTaskResult,
  LegacyTask,
  ListTasksResult,
  ModernCreateTaskResult,
  ModernTask,
  TaskOf,
  TaskStatus,
  TaskWaitOptions,
  TasksRefusal,
} from "../mcp/task-client.js";
export { PaginationError, DEFAULT_MAX_PAGES } from "../mcp/pages.js";
export { OpeningTimeoutError, DEFAULT_OPEN_TIMEOUT } from "../mcp/opening.js";
export type { SentRequest } from "../mcp/opening.js";
export { ServerExitedError } from "../peer/errors.js";
export type { PaginationFailure, WalkOptions } from "../mcp/pages.js";
export { Subscription } from "../mcp/listen.js";
export type { ListenFilter } from "../mcp/listen.js";
export type { NotificationListener } from "../mcp/events.js";
export type {
  CallToolResult,
  CompleteRef,
  CompleteResult,
  GetPromptResult,
  Implementation,
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListResourcesResult,
  ListToolsResult,
  LogLevel,
  PagedResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from "../mcp/meta.js";
export { connectHttp } from "../mcp/connect-http.js";
export type {
  HttpConnectOptions,
  HttpConnection,
  HttpTransportName,
  HttpEra,
  HttpEraMemory,
} from "../mcp/connect-http.js";
export { INPUT_METHODS } from "../mcp/mrtr.js";
export type { InputHandler, InputHandlers, InputContext, InputMethod } from "../mcp/mrtr.js";
export { ChildServer } from "../transport/child.js";
export type { SpawnOptions, ExitStatus } from "../transport/child.js";
