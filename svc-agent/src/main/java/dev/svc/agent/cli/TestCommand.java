package dev.svc.agent.cli;

import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.uplink.ServerConnection;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.CancelAnswer;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code svc-agent test list|stop}: this agent's quick tests, read and cancelled with the agent's
 * own token (the server lets an agent list its own tests and cancel them).
 */
@Command(name = "test", mixinStandardHelpOptions = true, description = "List this agent's tests or stop one.",
    subcommands = {TestCommand.ListTests.class, TestCommand.StopTest.class})
public final class TestCommand implements Callable<Integer> {

  static final Set<String> STATUSES = Set.of("queued", "dispatched", "running", "completed", "failed");

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(System.err);
    return 2;
  }

  /** Options both subcommands share. */
  static class Common {
    @Mixin
    HomeOptions homeOptions = new HomeOptions();

    @Option(names = "--insecure", description = "Do not verify the server's TLS certificate (development only).")
    boolean insecure;

    AgentConfig config(String command) {
      try {
        return homeOptions.loadConfig();
      } catch (RuntimeException e) {
        System.err.println("svc-agent test " + command + ": " + e.getMessage());
        return null;
      }
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List this agent's tests, newest first.")
  static final class ListTests extends Common implements Callable<Integer> {

    @Option(names = "--status", paramLabel = "STATUS", description = "Only tests in this state: queued, dispatched,"
        + " running, completed or failed.")
    String status;

    @Option(names = "--limit", paramLabel = "N", description = "At most this many tests, 1 to 200 (default: ${DEFAULT-VALUE}).")
    int limit = 20;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      if (status != null && !STATUSES.contains(status)) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--status must be one of queued, dispatched, running, completed, failed");
      }
      if (limit < 1 || limit > 200) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--limit must be from 1 to 200");
      }
      AgentConfig config = config("list");
      if (config == null) {
        return 1;
      }
      // the agent is known to the server by its name too, and its own token may read its own tests
      String query = "/api/v1/quicktest?agent_id=" + encode(config.name()) + "&per_page=" + limit
          + (status == null ? "" : "&status=" + encode(status));
      Vertx vertx = Vertx.vertx();
      try {
        ServerConnection server = ServerConnection.open(vertx, config, insecure);
        HttpResponse<Buffer> response = LocalAgent.await(server.request(HttpMethod.GET, query).send());
        if (response.statusCode() != 200) {
          System.err.println("svc-agent test list: the server answered HTTP " + response.statusCode()
              + LocalAgent.errorText(response.bodyAsString()));
          return 1;
        }
        List<ListedTest> items;
        try {
          items = ListedTest.page(jsonBody(response));
        } catch (BadMessage e) {
          System.err.println("svc-agent test list: the server's list of tests is malformed: " + e.getMessage());
          return 1;
        }
        if (items.isEmpty()) {
          System.out.println("No tests" + (status == null ? "" : " " + status) + " for agent " + config.name());
          return 0;
        }
        System.out.print(table(items));
        return 0;
      } catch (RuntimeException e) {
        System.err.println("svc-agent test list: could not reach " + config.servers().get(0) + ": " + e.getMessage());
        return 1;
      } finally {
        vertx.close();
      }
    }
  }

  /** The tests as an aligned table: id, status, engine, model, created, error. */
  static String table(List<ListedTest> items) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"ID", "STATUS", "ENGINE", "MODEL", "CREATED", "ERROR"});
    for (ListedTest t : items) {
      rows.add(new String[] {text(t.id()), text(t.status()), text(t.engineName()), text(t.modelPath()),
          text(t.createdAt()), oneLine(t.error())});
    }
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        widths[c] = Math.max(widths[c], row[c].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < row.length; c++) {
        line.append(c == row.length - 1 ? row[c] : String.format("%-" + widths[c] + "s  ", row[c]));
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  private static String text(String value) {
    return value == null || value.isEmpty() ? "-" : value;
  }

  private static String oneLine(String value) {
    if (value == null || value.isEmpty()) {
      return "";
    }
    String line = value.strip().replaceAll("\\s*\\R\\s*", " / ");
    return line.length() > 80 ? line.substring(0, 79) + "…" : line;
  }

  /** The server's answer as a JSON object; anything else is a malformed answer. */
  private static JsonObject jsonBody(HttpResponse<Buffer> response) {
    JsonObject body;
    try {
      body = response.bodyAsJsonObject();
    } catch (RuntimeException e) {
      throw new BadMessage("it is not a JSON object");
    }
    if (body == null) {
      throw new BadMessage("it is empty");
    }
    return body;
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "Stop a test: the local agent ends its benchmark; a test it does not hold is cancelled on the server.")
  static final class StopTest extends Common implements Callable<Integer> {

    @Parameters(paramLabel = "ID", description = "The test's id.")
    String id;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      if (!id.matches("[A-Za-z0-9_-]{1,64}")) {
        throw new CommandLine.ParameterException(spec.commandLine(), "'" + id + "' is not a test id");
      }
      AgentConfig config = config("stop");
      if (config == null) {
        return 1;
      }
      String why;
      try (LocalAgent local = LocalAgent.open(homeOptions.home(), config)) {
        HttpResponse<Buffer> response = local.cancel(id);
        if (response.statusCode() >= 200 && response.statusCode() < 300) {
          System.out.println("Stopped test " + id + " on the local agent: its benchmark is gone and it reports the"
              + " test failed, Cancelled by user");
          return 0;
        }
        why = response.statusCode() == 404 ? "the local agent does not hold it"
            : "the local agent answered HTTP " + response.statusCode() + LocalAgent.errorText(response.bodyAsString());
      } catch (IllegalArgumentException e) {
        why = e.getMessage();
      } catch (RuntimeException e) {
        why = LocalAgent.notListening(e) ? "the local agent is not running" : "the local agent: " + e.getMessage();
      }
      System.out.println("Test " + id + ": " + why + "; cancelling it on the server");
      Vertx vertx = Vertx.vertx();
      try {
        ServerConnection server = ServerConnection.open(vertx, config, insecure);
        HttpResponse<Buffer> response = LocalAgent.await(server.request(HttpMethod.POST,
            "/api/v1/quicktest/" + id + "/cancel").sendJsonObject(new JsonObject()));
        if (response.statusCode() == 200) {
          CancelAnswer answer;
          try {
            answer = CancelAnswer.parse(jsonBody(response));
          } catch (BadMessage e) {
            // the server did cancel it: only its account of how is unreadable
            System.out.println("Cancelled test " + id + " on the server (its answer is malformed: " + e.getMessage()
                + ")");
            return 0;
          }
          System.out.println("Cancelled test " + id + " on the server: " + answer.status().wireName() + ", "
              + answer.error());
          return 0;
        }
        System.err.println("svc-agent test stop: the server refused to cancel " + id + ": HTTP " + response.statusCode()
            + LocalAgent.errorText(response.bodyAsString()));
        return 1;
      } catch (RuntimeException e) {
        System.err.println("svc-agent test stop: could not reach " + config.servers().get(0) + ": " + e.getMessage());
        return 1;
      } finally {
        vertx.close();
      }
    }
  }
}
