/** A model download or URI that cannot succeed as asked; the message says what to do about it. */
export class ModelDownloadError extends Error {
  constructor(
    message: string,
    /** A network failure worth retrying (dropped connection, 5xx), as opposed to a 404 or a bad checksum. */
    readonly retryable = false,
  ) {
    super(message);
    this.name = "ModelDownloadError";
  }
}
