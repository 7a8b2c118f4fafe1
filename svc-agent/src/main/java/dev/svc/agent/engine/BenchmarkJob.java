package dev.svc.agent.engine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What one benchmark run needs, decided before it starts: the {@code svc run} arguments the
 * local fallback and the benchmark container share.
 *
 * @param commandId the server's command id: names the output directory and labels the containers
 * @param model the local model copy
 * @param out the output directory (metrics.json lands there)
 */
record BenchmarkJob(String commandId, String testId, Path model, String engine, String suite, String benchmark,
    boolean force, Path out, Path agentHome) {

  /** The arguments after {@code svc run}. */
  List<String> runArguments() {
    List<String> args = new ArrayList<>(List.of("-m", model.toString(), "-e", engine, "-s", suite));
    if (benchmark != null && !benchmark.isBlank()) {
      args.addAll(List.of("-b", benchmark));
    }
    // a free port: another agent on this host may run an engine of the same kind at the same time
    args.addAll(List.of("-o", out.toString(), "--engine-port", "0"));
    if (force) {
      args.add("--force");
    }
    return args;
  }

  /** The directory the engine mounts: the model's own directory, or the one holding a model file. */
  Path modelDirectory() {
    return Files.isDirectory(model) ? model : model.getParent();
  }
}
