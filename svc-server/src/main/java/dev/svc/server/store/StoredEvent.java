package dev.svc.server.store;

/** A stored event: its sequence number, source, type and data (JSON text). */
public record StoredEvent(Long id, String sourceId, String type, String data, String createdAt) {
}
