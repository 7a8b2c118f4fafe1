package dev.svc.engines.lifecycle;

/**
 * Where the lifecycle writes its progress, one human-readable line at a time (the agent forwards
 * them as a test's log lines; the CLI prints them). Lines reach it already redacted. Called from
 * the thread that runs the lifecycle, and from the shutdown hook's thread on SIGINT/SIGTERM.
 */
@FunctionalInterface
public interface LogSink {

  void log(String line);
}
