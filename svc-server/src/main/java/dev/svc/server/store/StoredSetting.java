package dev.svc.server.store;

/** A stored setting: an agent's, or a global one ({@code agentId} null there, and where the query selected one agent's). */
record StoredSetting(String agentId, String key, String value) {
}
