package dev.svc.perf.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The {@code wrk} HTTP benchmark tool as a cross-check of the Java client on plain HTTP (it has no client certificates). */
final class Wrk {

  /** What wrk printed: requests/s, latency p50 and p99 in ms, and the responses that were not 2xx or 3xx. */
  record Result(double perSecond, double p50Ms, double p99Ms, long non2xx, String socketErrors) {
    String describe() {
      return String.format(Locale.ROOT, "%,9.0f req/s  p50 %6.2f  p99 %6.2f ms  %s%s", perSecond, p50Ms, p99Ms,
          non2xx == 0 ? "0 failed" : non2xx + " non-2xx", socketErrors == null ? "" : "  socket errors: " + socketErrors);
    }
  }

  private Wrk() {
  }

  static boolean available() {
    try {
      Process p = new ProcessBuilder("wrk", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      p.waitFor(10, TimeUnit.SECONDS);
      return true;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Runs {@code wrk -t threads -c connections -d seconds --latency [-s script] url}. */
  static Result run(String url, int threads, int connections, int seconds, String luaScript) throws IOException,
      InterruptedException {
    List<String> command = new ArrayList<>(List.of("wrk", "-t" + threads, "-c" + connections, "-d" + seconds + "s",
        "--latency"));
    Path script = null;
    if (luaScript != null) {
      script = Files.createTempFile("svc-bench-", ".lua");
      Files.writeString(script, luaScript);
      command.addAll(List.of("-s", script.toString()));
    }
    command.add(url);
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(seconds + 30L, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IOException("wrk failed: " + output);
      }
      return parse(output);
    } finally {
      if (script != null) {
        Files.deleteIfExists(script);
      }
    }
  }

  private static final Pattern RATE = Pattern.compile("(?m)^Requests/sec:\\s+([0-9.]+)");
  private static final Pattern PERCENTILE = Pattern.compile("(?m)^\\s+(50|99)%\\s+([0-9.]+)(us|ms|s)\\s*$");
  private static final Pattern NON_2XX = Pattern.compile("(?m)^\\s*Non-2xx or 3xx responses:\\s+(\\d+)");
  private static final Pattern SOCKET_ERRORS = Pattern.compile("(?m)^\\s*Socket errors:\\s+(.+)$");

  /** Reads wrk's report (with --latency); fails when it holds no request rate. */
  static Result parse(String output) {
    Matcher rate = RATE.matcher(output);
    if (!rate.find()) {
      throw new IllegalArgumentException("no 'Requests/sec' in wrk's output: " + output);
    }
    double p50 = Double.NaN;
    double p99 = Double.NaN;
    Matcher m = PERCENTILE.matcher(output);
    while (m.find()) {
      double ms = Double.parseDouble(m.group(2)) * switch (m.group(3)) {
        case "us" -> 0.001;
        case "ms" -> 1;
        default -> 1000;
      };
      if (m.group(1).equals("50")) {
        p50 = ms;
      } else {
        p99 = ms;
      }
    }
    Matcher non = NON_2XX.matcher(output);
    Matcher socket = SOCKET_ERRORS.matcher(output);
    return new Result(Double.parseDouble(rate.group(1)), p50, p99, non.find() ? Long.parseLong(non.group(1)) : 0,
        socket.find() ? socket.group(1).trim() : null);
  }

  /** A wrk script that POSTs each agent's heartbeat in turn, with its token. */
  static String heartbeatScript(List<BenchAgent> agents, String body) {
    StringBuilder lua = new StringBuilder("local paths = {");
    for (BenchAgent agent : agents) {
      lua.append('"').append(agent.heartbeatPath()).append("\",");
    }
    lua.append("}\nlocal tokens = {");
    for (BenchAgent agent : agents) {
      lua.append('"').append(agent.token()).append("\",");
    }
    lua.append("}\nlocal body = '").append(body.replace("\\", "\\\\").replace("'", "\\'")).append("'\n")
        .append("local i = 0\n")
        .append("request = function()\n")
        .append("  i = i % #paths + 1\n")
        .append("  return wrk.format(\"POST\", paths[i], {[\"Content-Type\"] = \"application/json\",")
        .append(" [\"Authorization\"] = \"Bearer \" .. tokens[i]}, body)\n")
        .append("end\n");
    return lua.toString();
  }
}
