package dev.svc.server.http;

/** A failure that reaches the client as {@code {"error": message}} with its HTTP status. */
public final class ApiError extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int status;

  public ApiError(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  public int status() {
    return status;
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
