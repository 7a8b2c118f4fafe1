package dev.svc.core.protocol;

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
 * The server's answer to a heartbeat (protocol.md: {@code agent_id}, {@code settings}, {@code commands}):
 * the server writes it with {@link #toJson}, the agent and the fleet simulator read it with
 * {@link #parse}, checked whole before any of it is applied: a malformed answer is refused with one
 * sentence and changes nothing, rather than failing half-way with a ClassCastException after the
 * settings were taken. A command without a {@code command_id} is left out, as before.
 *
 * @param agentId the id the server knows this agent by, when it names one
 * @param settings the agent's settings, when the answer carries them
 * @param commands the commands to forward to the engine, each with a non-blank command_id
 */
public record HeartbeatAnswer(Optional<String> agentId, Optional<JsonObject> settings, List<Command> commands) {

  /**
   * What an agent id may be: it goes into request paths, so no '/', '%' or '..'; ids from older
   * servers need not be this server's 16 hex digits.
   */
  public static final Pattern AGENT_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  /** Longest command id taken; the server's are far shorter. */
  public static final int MAX_COMMAND_ID = 128;

  /** The command that starts a test on the agent; its payload is a {@link RunTest}. */
  public static final String RUN_TEST = "run_test";
  /** The command that stops the test the agent runs; its payload is a {@link CancelTest}. */
  public static final String CANCEL_TEST = "cancel_test";

  /** One command: the engine gets exactly these fields ({@code test_id} only when there is one). */
  public record Command(String commandId, String testId, String type, JsonObject payload) {

    public static Command runTest(String commandId, RunTest test) {
      return new Command(commandId, test.testId(), RUN_TEST, test.toJson());
    }

    public static Command cancelTest(String commandId, String testId) {
      return new Command(commandId, testId, CANCEL_TEST, new CancelTest(testId).toJson());
    }

    /**
     * One command as {@link #toJson} writes it (what the agent's engine receives); empty when it has
     * no command_id, as in an answer.
     */
    public static Optional<Command> parse(JsonObject json) {
      return command(json, "command");
    }

    public JsonObject toJson() {
      JsonObject json = new JsonObject().put("command_id", commandId).put("type", type);
      if (testId != null) {
        json.put("test_id", testId);
      }
      return json.put("payload", payload == null ? new JsonObject() : payload);
    }
  }

  /** The answer as the server sends it; {@code agent_id} only when it names one. */
  public JsonObject toJson() {
    JsonObject json = new JsonObject();
    agentId.ifPresent(id -> json.put("agent_id", id));
    JsonArray listed = new JsonArray();
    commands.forEach(c -> listed.add(c.toJson()));
    json.put("commands", listed);
    settings.ifPresent(s -> json.put("settings", s));
    return json;
  }

  /** A heartbeat answer this agent cannot use; the message says what is wrong with it. */
  public static final class MalformedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedException(String problem) {
      super("The server's heartbeat answer is malformed: " + problem);
    }
  }

  public static HeartbeatAnswer parse(Buffer body) {
    Object decoded;
    try {
      // Jackson bounds the nesting depth, so a deep answer is a DecodeException, not a stack overflow
      decoded = body == null || body.length() == 0 ? null : Json.decodeValue(body);
    } catch (DecodeException | IllegalStateException e) {
      throw new MalformedException("it is not JSON");
    }
    return from(decoded);
  }

  /** As {@link #parse}, for an answer already decoded (null, or any JSON value). */
  public static HeartbeatAnswer from(Object decoded) {
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
  public static Map<String, String> flat(JsonObject settings) {
    Map<String, String> out = new LinkedHashMap<>();
    settings.forEach(e -> out.put(e.getKey(), e.getValue() == null ? null : String.valueOf(e.getValue())));
    return out;
  }
}
