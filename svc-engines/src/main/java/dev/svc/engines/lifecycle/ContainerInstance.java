package dev.svc.engines.lifecycle;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.ConflictException;
import com.github.dockerjava.api.exception.NotFoundException;
import java.util.List;
import java.util.Optional;

/** An engine container as the shared stages see it: created and started from its plan, stopped and removed. */
final class ContainerInstance implements EngineInstance {

  private final DockerClient docker;
  private final ContainerPlan plan;
  private volatile String id;

  ContainerInstance(DockerClient docker, ContainerPlan plan) {
    this.docker = docker;
    this.plan = plan;
  }

  @Override
  public String name() {
    return plan.name();
  }

  @Override
  public String label() {
    return "container " + plan.name();
  }

  /** Creates and starts the container, refusing when another holds its name. */
  @Override
  public void start(LogSink log) {
    String tag = LifecycleStage.CREATE.tag() + " ";
    log.log(tag + plan.dockerRunLine());
    String created;
    try {
      var command = docker.createContainerCmd(plan.image())
          .withName(plan.name())
          .withHostConfig(plan.hostConfig())
          .withEnv(plan.environmentList())
          .withLabels(plan.labels())
          .withCmd(plan.args());
      if (!plan.entrypoint().isEmpty()) {
        command.withEntrypoint(plan.entrypoint());
      }
      created = command.exec().getId();
    } catch (ConflictException e) {
      throw new IllegalStateException("A container named " + plan.name() + " already exists.", e);
    }
    id = created;
    log.log(tag + "Created container " + plan.name() + " (id " + shortId(created) + ")");
    docker.startContainerCmd(created).exec();
    log.log(tag + "Started " + plan.name());
  }

  @Override
  public Optional<String> exitState() {
    try {
      InspectContainerResponse.ContainerState state = docker.inspectContainerCmd(id).exec().getState();
      if (Boolean.TRUE.equals(state.getRunning())) {
        return Optional.empty();
      }
      String how = "exited with code " + state.getExitCodeLong();
      if (Boolean.TRUE.equals(state.getOOMKilled())) {
        how += " (killed: out of memory)";
      }
      return Optional.of(how);
    } catch (NotFoundException e) {
      return Optional.of("disappeared");
    }
  }

  @Override
  public String unwatchable(RuntimeException error) {
    return "Docker stopped answering at " + DockerClients.host() + " (" + DockerClients.rootMessage(error) + ")";
  }

  @Override
  public List<String> logTail(int lines) {
    return ContainerLogs.tail(docker, id, lines);
  }

  @Override
  public EngineIdentity identity() {
    return new EngineIdentity.Container(id, plan.name());
  }

  @Override
  public List<String> launchArgs() {
    return plan.launchArgs();
  }

  /** The image the container was created from, as the daemon resolved its name then. */
  @Override
  public Optional<String> imageDigest() {
    try {
      String imageId = docker.inspectContainerCmd(id).exec().getImageId();
      return imageId == null ? Optional.empty() : new EngineImages(docker).inspect(imageId).map(EngineImages::digest);
    } catch (RuntimeException e) {
      // the digest describes the run; a daemon that cannot say leaves it unknown rather than failing the run
      return Optional.empty();
    }
  }

  @Override
  public boolean gpusRequested() {
    return plan.requestGpus();
  }

  @Override
  public String stopAction() {
    return "stopping and removing " + plan.name();
  }

  @Override
  public String stoppedNote() {
    return "the container is stopped and removed";
  }

  /** Stops and removes the container; one that was never created is looked for by name. */
  @Override
  public RuntimeException stop(LogSink log) {
    return id != null ? ContainerCleanup.stopAndRemove(docker, plan.name(), log) : removeIfCreated();
  }

  private RuntimeException removeIfCreated() {
    try {
      docker.removeContainerCmd(plan.name()).withForce(true).exec();
      return null;
    } catch (NotFoundException e) {
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  private static String shortId(String id) {
    return id.length() > 12 ? id.substring(0, 12) : id;
  }
}
