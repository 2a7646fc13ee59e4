/** A bad flag: the CLI prints the message on one line and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
