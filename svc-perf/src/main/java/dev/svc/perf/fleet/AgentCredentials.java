package dev.svc.perf.fleet;

/**
 * What enrolment gave one virtual agent.
 *
 * @param name its name (the CN of its certificate)
 * @param id the id the server provisioned it under
 * @param token the token the server issued to it
 * @param keyManager its client certificate and key, or null on plain HTTP
 */
record AgentCredentials(String name, String id, String token, AgentKeyManager keyManager) {
}
