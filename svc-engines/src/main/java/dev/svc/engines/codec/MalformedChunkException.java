package dev.svc.engines.codec;

/** A streamed line that does not have the shape the engine's format promises. */
public final class MalformedChunkException extends RuntimeException {

  MalformedChunkException(String message, Throwable cause) {
    super(message, cause);
  }

  MalformedChunkException(String message) {
    super(message);
  }
}
