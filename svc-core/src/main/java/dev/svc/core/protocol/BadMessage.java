package dev.svc.core.protocol;

/**
 * A message of the protocol that cannot be taken: the sentence says which field and why. The
 * server answers it 400 with the sentence; nothing of the message is applied.
 */
public final class BadMessage extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public BadMessage(String sentence) {
    super(sentence, null, false, false);
  }
}
