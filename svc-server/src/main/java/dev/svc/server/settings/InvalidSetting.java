package dev.svc.server.settings;

/** A setting's value the rules refuse; the message says which rule, and the API answers it as a 400. */
public final class InvalidSetting extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public InvalidSetting(String message) {
    super(message, null, false, false);
  }
}
