package dev.svc.agent.engine;

import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.DeviceRequest;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import com.github.dockerjava.api.model.AccessMode;
import dev.svc.engines.lifecycle.ContainerPlan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark container: the svc image running {@code svc run}, which starts the engine as a
 * sibling container through the mounted Docker socket. Because the host's dockerd resolves the
 * sibling's bind mounts, the model and results directories are mounted at the same paths as on
 * the host; {@code --network host} lets {@code svc run} reach the engine on 127.0.0.1.
 *
 * @param binds the bind mounts
 */
record BenchmarkContainerPlan(String image, String name, List<String> entrypoint, List<String> cmd, List<Mount> binds,
    boolean gpus, Map<String, String> labels, List<String> env) {

  /** A bind mount: a host path at a container path. */
  record Mount(String host, String container, boolean readOnly) {
    @Override
    public String toString() {
      return host + ":" + container + (readOnly ? ":ro" : "");
    }
  }

  /** The svc image's own entrypoint is {@code java -jar /opt/svc/svc.jar}; ours adds {@code run}. */
  static final List<String> ENTRYPOINT = List.of("java", "-jar", "/opt/svc/svc.jar", "run");
  /** Marks a container as an agent's benchmark container. */
  static final String BENCHMARK_LABEL = "dev.svc.agent.benchmark";
  /** The svc home of svc run inside the container: the agent's engines.yaml and suites are mounted there. */
  static final String CONTAINER_HOME = "/root/.svc";
  /** Where svc run inside the container reads the engine catalog override. */
  static final String CONTAINER_ENGINES_YAML = CONTAINER_HOME + "/engines.yaml";

  BenchmarkContainerPlan {
    entrypoint = List.copyOf(entrypoint);
    cmd = List.copyOf(cmd);
    binds = List.copyOf(binds);
    labels = Map.copyOf(labels);
    env = List.copyOf(env);
  }

  /**
   * @param dockerSocket the host's Docker socket path
   * @param gpus whether nvidia-smi lists GPUs on this host
   */
  static BenchmarkContainerPlan of(BenchmarkJob job, String image, Path dockerSocket, boolean gpus) {
    List<Mount> binds = new ArrayList<>();
    binds.add(new Mount(dockerSocket.toString(), dockerSocket.toString(), false));
    String modelDir = job.modelDirectory().toString();
    binds.add(new Mount(modelDir, modelDir, true));
    binds.add(new Mount(job.out().toString(), job.out().toString(), false));
    Path enginesYaml = job.agentHome().resolve("engines.yaml");
    if (Files.isRegularFile(enginesYaml)) {
      binds.add(new Mount(enginesYaml.toAbsolutePath().toString(), CONTAINER_ENGINES_YAML, true));
    }
    Path suites = job.agentHome().resolve("suites");
    if (Files.isDirectory(suites)) {
      binds.add(new Mount(suites.toAbsolutePath().toString(), CONTAINER_HOME + "/suites", true));
    }
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(BENCHMARK_LABEL, "true");
    labels.put(ContainerPlan.RUN_LABEL, job.commandId());
    List<String> env = new ArrayList<>();
    env.add(ContainerPlan.RUN_ID_ENV + "=" + job.commandId());
    if (!"/var/run/docker.sock".equals(dockerSocket.toString())) {
      env.add("DOCKER_HOST=unix://" + dockerSocket);
    }
    List<String> cmd = new ArrayList<>(job.runArguments());
    cmd.addAll(List.of("--home", CONTAINER_HOME));
    return new BenchmarkContainerPlan(image, containerName(job.commandId()), ENTRYPOINT, cmd, binds, gpus, labels, env);
  }

  /** {@code svc-bench-<command id>}, reduced to the characters Docker allows in a name. */
  static String containerName(String commandId) {
    String safe = commandId.replaceAll("[^A-Za-z0-9_.-]", "-");
    return "svc-bench-" + (safe.length() > 64 ? safe.substring(0, 64) : safe);
  }

  HostConfig hostConfig() {
    HostConfig config = HostConfig.newHostConfig().withNetworkMode("host").withBinds(binds.stream().map(b ->
        b.readOnly() ? new Bind(b.host(), new Volume(b.container()), AccessMode.ro) : new Bind(b.host(), new Volume(b.container())))
        .toList());
    if (gpus) {
      config.withDeviceRequests(List.of(new DeviceRequest().withCount(-1).withCapabilities(List.of(List.of("gpu")))));
    }
    return config;
  }

  /** The equivalent docker run line, for the log. */
  String dockerRunLine() {
    StringBuilder line = new StringBuilder("docker run --rm --name ").append(name).append(" --network host");
    if (gpus) {
      line.append(" --gpus all");
    }
    binds.forEach(b -> line.append(" -v ").append(b));
    env.forEach(e -> line.append(" -e ").append(e));
    line.append(" --entrypoint ").append(entrypoint.get(0)).append(' ').append(image);
    entrypoint.subList(1, entrypoint.size()).forEach(word -> line.append(' ').append(word));
    cmd.forEach(word -> line.append(' ').append(word));
    return line.toString();
  }
}
