package dev.svc.server.store;

/**
 * What the server knows of a presented token: it is a live agent's, it was a deleted agent's
 * (deleting an agent revokes its token for good), or it is no agent's.
 */
public enum TokenState {
  LIVE, REVOKED, UNKNOWN
}
