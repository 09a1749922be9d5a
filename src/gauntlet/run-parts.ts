/**
 * What a run needs once its client is on its way: the server, the tape, the recording and the
 * scoring. Run mode loads them only after it has started the client, so the client's own start
 * (well over 100 ms for a node process) hides the 40–50 ms they take to load instead of adding
 * to every run.
 */
export { buildCore, servedRevisions, serveHttp } from "./server.js";
export { Tape } from "./tape.js";
export { LiveRecording, readTape } from "./tape-file.js";
export { requestTarget } from "./http-request.js";
export { notRun, scoreRun } from "./score.js";
export { warmJudging } from "./warm.js";
