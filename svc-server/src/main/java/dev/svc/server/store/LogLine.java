package dev.svc.server.store;

/** A stored log line of a test or campaign: its event's id, when it was stored, and its text. */
public record LogLine(long id, String createdAt, String line) {
}
