package dev.svc.bench.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/** {@code svc run} as the main class of a child JVM, for tests that run it in a process of its own. */
public final class SvcRunMain {

  private SvcRunMain() {
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new RunCommand()).execute(args));
  }

  /** The command of a child JVM that runs {@code svc run args}, with the JVM options bin/svc gives it. */
  static List<String> command(List<String> args) {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:+UseZGC", "-XX:CompileThresholdScaling=0.1", "-cp", System.getProperty("java.class.path"),
        SvcRunMain.class.getName()));
    command.addAll(args);
    return command;
  }
}
