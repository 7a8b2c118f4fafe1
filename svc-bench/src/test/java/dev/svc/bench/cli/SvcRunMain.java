package dev.svc.bench.cli;

import picocli.CommandLine;

/** {@code svc run} as the main class of a child JVM, for tests that run it in a process of its own. */
public final class SvcRunMain {

  private SvcRunMain() {
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new RunCommand()).execute(args));
  }
}
