package dev.svc.agent.storage;

/** The model could not be found, mounted, confined or copied; the message is one line for the user. */
public final class ModelLookupException extends Exception {

  public ModelLookupException(String message) {
    super(message);
  }

  public ModelLookupException(String message, Throwable cause) {
    super(message, cause);
  }
}
