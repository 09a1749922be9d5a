/** What went wrong with a file, in words a person reads without knowing errno names. */

const WORDS: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "it is a folder, not a file",
  ENOTDIR: "a part of the path is not a folder",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "the file system is read-only",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  ENAMETOOLONG: "the name is too long",
  EMFILE: "too many files are open",
  ENFILE: "too many files are open",
  ELOOP: "the path loops through symbolic links",
  EBUSY: "the file is busy",
  EEXIST: "the file already exists",
  EINVAL: "not a valid path",
};

/** The problem alone: "no such file". */
export function fileProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code && WORDS[code]) return WORDS[code];
  const message = e instanceof Error ? e.message : String(e);
  // an errno name a person would not know, and the syscall and path the caller already says
  return message
    .replace(/^[A-Z]+: /, "")
    .replace(/, \w+ '[^']*'$/, "")
    .replace(/, \w+$/, "");
}

/** `cannot read targets.txt: no such file` */
export function cannotRead(file: string, e: unknown): string {
  return `cannot read ${file}: ${fileProblem(e)}`;
}

/** `cannot write report.html: a part of the path is not a folder` */
export function cannotWrite(file: string, e: unknown): string {
  // a file about to be created is missing only when its folder is
  const missing = (e as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
  return `cannot write ${file}: ${missing ? "no such folder" : fileProblem(e)}`;
}
