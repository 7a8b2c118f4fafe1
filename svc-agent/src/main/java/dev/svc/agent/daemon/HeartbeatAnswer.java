package dev.svc.agent.daemon;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The server's answer to a heartbeat (protocol.md: {@code agent_id}, {@code settings}, {@code commands}),
 * checked whole before any of it is applied: a malformed answer is refused with one sentence and
 * changes nothing, rather than failing half-way with a ClassCastException after the settings were
 * taken. A command without a {@code command_id} is left out, as before.
 *
 * @param agentId the id the server knows this agent by, when it names one
 * @param settings the agent's settings, when the answer carries them
 * @param commands the commands to forward to the engine, each with a non-blank command_id
 */
record HeartbeatAnswer(Optional<String> agentId, Optional<JsonObject> settings, List<Command> commands) {

  /**
   * What an agent id may be: it goes into request paths, so no '/', '%' or '..'; ids from older
   * servers need not be this server's 16 hex digits.
   */
  static final Pattern AGENT_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  /** Longest command id taken; the server's are far shorter. */
  static final int MAX_COMMAND_ID = 128;

  /** One command: the engine gets exactly these fields. */
  record Command(String commandId, String testId, String type, JsonObject payload) {
  }

  /** A heartbeat answer this agent cannot use; the message says what is wrong with it. */
  static final class MalformedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MalformedException(String problem) {
      super("The server's heartbeat answer is malformed: " + problem);
    }
  }

  static HeartbeatAnswer parse(Buffer body) {
    Object decoded;
    try {
      // Jackson bounds the nesting depth, so a deep answer is a DecodeException, not a stack overflow
      decoded = body == null || body.length() == 0 ? null : Json.decodeValue(body);
    } catch (DecodeException | IllegalStateException e) {
      throw new MalformedException("it is not JSON");
    }
    if (!(decoded instanceof JsonObject answer)) {
      throw new MalformedException("it is not a JSON object");
    }
    Object id = answer.getValue("agent_id");
    if (id != null && !(id instanceof String s && AGENT_ID.matcher(s).matches())) {
      throw new MalformedException("agent_id must be 1 to 64 characters of A-Z, a-z, 0-9, '_' and '-'");
    }
    Object settings = answer.getValue("settings");
    if (settings != null && !(settings instanceof JsonObject)) {
      throw new MalformedException("settings must be an object");
    }
    Object listed = answer.getValue("commands");
    if (listed != null && !(listed instanceof JsonArray)) {
      throw new MalformedException("commands must be a list");
    }
    List<Command> commands = new ArrayList<>();
    if (listed != null) {
      int i = 0;
      for (Object item : (JsonArray) listed) {
        command(item, "commands[" + i++ + "]").ifPresent(commands::add);
      }
    }
    return new HeartbeatAnswer(Optional.ofNullable((String) id), Optional.ofNullable((JsonObject) settings),
        List.copyOf(commands));
  }

  private static Optional<Command> command(Object item, String at) {
    if (!(item instanceof JsonObject command)) {
      throw new MalformedException(at + " must be an object");
    }
    Object id = command.getValue("command_id");
    if (id == null || (id instanceof String s && s.isBlank())) {
      return Optional.empty();
    }
    if (!(id instanceof String s) || s.length() > MAX_COMMAND_ID) {
      throw new MalformedException(at + ".command_id must be a string of at most " + MAX_COMMAND_ID + " characters");
    }
    Object payload = command.getValue("payload");
    if (payload != null && !(payload instanceof JsonObject)) {
      throw new MalformedException(at + ".payload must be an object");
    }
    return Optional.of(new Command(s, text(command, "test_id", at), text(command, "type", at),
        payload == null ? new JsonObject() : (JsonObject) payload));
  }

  private static String text(JsonObject command, String field, String at) {
    Object value = command.getValue(field);
    if (value != null && !(value instanceof String)) {
      throw new MalformedException(at + "." + field + " must be a string");
    }
    return (String) value;
  }

  /** Settings as the strings that {@link dev.svc.core.domain.AgentSettings} reads. */
  static Map<String, String> flat(JsonObject settings) {
    Map<String, String> out = new LinkedHashMap<>();
    settings.forEach(e -> out.put(e.getKey(), e.getValue() == null ? null : String.valueOf(e.getValue())));
    return out;
  }
}
