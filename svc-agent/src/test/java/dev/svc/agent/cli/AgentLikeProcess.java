package dev.svc.agent.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real java process of the agent's classpath (its main class lives in dev.svc.agent), as a stand-in
 * for a running daemon where a test needs only a live svc-agent process to signal: it blocks until
 * SIGTERM (the JVM's default handling) or until its stdin closes.
 */
final class AgentLikeProcess implements AutoCloseable {

  private final Process process;

  private AgentLikeProcess(Process process) {
    this.process = process;
  }

  public static void main(String[] args) throws IOException {
    System.out.println("ready");
    System.out.flush();
    while (System.in.read() >= 0) {
      // holds on until stdin is closed or a signal ends the JVM
    }
  }

  static AgentLikeProcess start() throws IOException {
    List<String> command = new ArrayList<>(List.of(StartCommand.javaBinary(), "-cp",
        System.getProperty("java.class.path"), AgentLikeProcess.class.getName()));
    Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    // "ready" means the JVM runs the main class: its command line is complete
    byte[] ready = process.getInputStream().readNBytes(6);
    if (!new String(ready).startsWith("ready")) {
      process.destroyForcibly();
      throw new IllegalStateException("the stand-in process did not start");
    }
    return new AgentLikeProcess(process);
  }

  long pid() {
    return process.pid();
  }

  Process process() {
    return process;
  }


  @Override
  public void close() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }
}
