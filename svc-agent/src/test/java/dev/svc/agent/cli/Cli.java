package dev.svc.agent.cli;

import dev.svc.agent.AgentCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs {@code svc-agent <args>} in this JVM, as the launcher would, and keeps what it printed. */
record Cli(int code, String out, String err) {

  static synchronized Cli run(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(outBytes, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = AgentCommand.commandLine().execute(args);
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
    Cli result = new Cli(code, outBytes.toString(StandardCharsets.UTF_8), errBytes.toString(StandardCharsets.UTF_8));
    System.out.print(result.out);
    System.err.print(result.err);
    return result;
  }
}
