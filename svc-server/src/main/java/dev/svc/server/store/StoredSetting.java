package dev.svc.server.store;

/** A stored setting of an agent ({@code agentId} null where the query selected one agent's). */
record StoredSetting(String agentId, String key, String value) {
}
