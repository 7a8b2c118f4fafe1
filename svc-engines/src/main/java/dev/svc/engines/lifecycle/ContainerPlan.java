package dev.svc.engines.lifecycle;

import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.DeviceRequest;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one container an engine run creates, as decided before anything is created: what
 * {@code docker run} would be given. {@link #dockerRunLine()} shows it with environment values
 * masked.
 *
 * @param image the image to run
 * @param name {@code kitt-<timestamp>}
 * @param entrypoint an entrypoint override, or empty to keep the image's
 * @param args the arguments after the image
 * @param environment the container's environment
 * @param modelDir the host directory mounted at {@code /models}
 * @param requestGpus whether all GPUs are requested ({@code --gpus all})
 * @param ipcMode {@code --ipc}, when the engine asks for it
 * @param shmSizeBytes {@code --shm-size}, when the engine asks for it
 * @param labels labels that mark the container as svc's
 */
public record ContainerPlan(
    String image,
    String name,
    List<String> entrypoint,
    List<String> args,
    Map<String, String> environment,
    String modelDir,
    boolean requestGpus,
    Optional<String> ipcMode,
    Optional<Long> shmSizeBytes,
    Map<String, String> labels) {

  /** Where the model directory is mounted inside the container. */
  public static final String MODELS_MOUNT = "/models";
  /** The label every svc engine container carries. */
  public static final String MANAGED_LABEL = "dev.svc.managed";
  /** The label with the engine's catalog name. */
  public static final String ENGINE_LABEL = "dev.svc.engine";
  /** The label naming the agent run (its command id) that started the container, when one did. */
  public static final String RUN_LABEL = "dev.svc.run";
  /** The environment variable through which the agent hands {@code svc run} its run's id. */
  public static final String RUN_ID_ENV = "SVC_RUN_ID";

  public ContainerPlan {
    entrypoint = List.copyOf(entrypoint);
    args = List.copyOf(args);
    environment = Map.copyOf(environment);
    labels = Map.copyOf(labels);
  }

  /** The Docker host configuration: host network, the model mount, GPUs only when requested. */
  public HostConfig hostConfig() {
    HostConfig config = HostConfig.newHostConfig()
        .withNetworkMode("host")
        .withBinds(new Bind(modelDir, new Volume(MODELS_MOUNT)));
    if (requestGpus) {
      config.withDeviceRequests(List.of(
          new DeviceRequest().withCount(-1).withCapabilities(List.of(List.of("gpu")))));
    }
    ipcMode.ifPresent(config::withIpcMode);
    shmSizeBytes.ifPresent(config::withShmSize);
    return config;
  }

  /** The environment as Docker takes it, {@code KEY=value}. */
  public List<String> environmentList() {
    return environment.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .map(entry -> entry.getKey() + "=" + entry.getValue())
        .toList();
  }

  /** The image and the words after it in {@link #dockerRunLine()}: what the engine in the container is started with. */
  public List<String> launchArgs() {
    List<String> words = new ArrayList<>();
    words.add(image);
    words.addAll(entrypoint.stream().skip(1).toList());
    words.addAll(args);
    return words;
  }

  /** The equivalent {@code docker run} command line, every environment value shown as ***. */
  public String dockerRunLine() {
    List<String> words = new ArrayList<>(List.of("docker", "run", "-d", "--name", name, "--network", "host"));
    if (requestGpus) {
      words.addAll(List.of("--gpus", "all"));
    }
    ipcMode.ifPresent(mode -> words.add("--ipc=" + mode));
    shmSizeBytes.ifPresent(bytes -> words.add("--shm-size=" + bytes));
    words.addAll(List.of("-v", modelDir + ":" + MODELS_MOUNT));
    environment.keySet().stream().sorted().forEach(key -> words.addAll(List.of("-e", key + "=" + Redactor.MASK)));
    if (!entrypoint.isEmpty()) {
      words.addAll(List.of("--entrypoint", entrypoint.get(0)));
    }
    words.addAll(launchArgs());
    return ShellWords.join(words);
  }
}
