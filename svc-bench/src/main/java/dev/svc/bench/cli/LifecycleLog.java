package dev.svc.bench.cli;

import dev.svc.engines.lifecycle.LogSink;
import dev.svc.engines.lifecycle.NativeLifecycle;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where {@code svc run} puts the engine lifecycle's lines: its stages on the terminal, indented;
 * the output of an engine it runs as a local process ({@code --native}) in a file of the results
 * directory instead, where it cannot break the progress bar.
 */
final class LifecycleLog implements LogSink, Closeable {

  private static final String ENGINE_LINE = NativeLifecycle.OUTPUT_TAG + " ";

  private final PrintStream terminal;
  private final BufferedWriter engineOutput;

  /**
   * @param engineLog the file for the engine's own output, or null to show it on the terminal too
   */
  LifecycleLog(PrintStream terminal, Path engineLog) throws IOException {
    this.terminal = terminal;
    if (engineLog == null) {
      this.engineOutput = null;
    } else {
      Files.createDirectories(engineLog.toAbsolutePath().getParent());
      this.engineOutput = Files.newBufferedWriter(engineLog, StandardCharsets.UTF_8);
    }
  }

  @Override
  public synchronized void log(String line) {
    if (engineOutput == null || !line.startsWith(ENGINE_LINE)) {
      terminal.println("  " + line);
      return;
    }
    try {
      engineOutput.write(line, ENGINE_LINE.length(), line.length() - ENGINE_LINE.length());
      engineOutput.newLine();
      engineOutput.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized void close() throws IOException {
    if (engineOutput != null) {
      engineOutput.close();
    }
  }
}
