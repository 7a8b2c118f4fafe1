package dev.svc.server.http;

/** A failure that reaches the client as {@code {"error": message}} with its HTTP status. */
public final class ApiError extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int status;
  private final long retryAfterSeconds;

  public ApiError(int status, String message) {
    this(status, message, 0);
  }

  private ApiError(int status, String message, long retryAfterSeconds) {
    super(message, null, false, false);
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  public int status() {
    return status;
  }

  /** The Retry-After the answer carries; 0 for none. */
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }

  public static ApiError tooManyRequests(String message, long retryAfterSeconds) {
    return new ApiError(429, message, retryAfterSeconds);
  }

  public static ApiError badRequest(String message) {
    return new ApiError(400, message);
  }

  public static ApiError unauthorized(String message) {
    return new ApiError(401, message);
  }

  public static ApiError forbidden(String message) {
    return new ApiError(403, message);
  }

  public static ApiError notFound(String message) {
    return new ApiError(404, message);
  }

  public static ApiError conflict(String message) {
    return new ApiError(409, message);
  }

  public static ApiError unprocessable(String message) {
    return new ApiError(422, message);
  }
}
