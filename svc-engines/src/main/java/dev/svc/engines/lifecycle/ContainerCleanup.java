package dev.svc.engines.lifecycle;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.exception.NotModifiedException;

/** {@code docker stop} then {@code docker rm}, tolerant of a container already stopped or gone. */
final class ContainerCleanup {

  private ContainerCleanup() {}

  /**
   * Stops and removes the container (by id or name).
   *
   * @return null when it is gone, else what went wrong
   */
  static RuntimeException stopAndRemove(DockerClient docker, String container, LogSink sink) {
    String tag = LifecycleStage.CLEANUP.tag() + " ";
    try {
      sink.log(tag + "Stopping " + container);
      docker.stopContainerCmd(container).withTimeout((int) EngineRunner.STOP_GRACE.toSeconds()).exec();
    } catch (NotModifiedException e) {
      sink.log(tag + container + " had already stopped");
    } catch (NotFoundException e) {
      sink.log(tag + container + " no longer exists");
      return null;
    } catch (RuntimeException e) {
      sink.log(tag + "Stopping " + container + " failed (" + DockerClients.rootMessage(e) + "); removing it by force");
    }
    try {
      docker.removeContainerCmd(container).withForce(true).withRemoveVolumes(true).exec();
      sink.log(tag + "Removed " + container);
      return null;
    } catch (NotFoundException e) {
      sink.log(tag + container + " was already removed");
      return null;
    } catch (RuntimeException e) {
      sink.log(tag + "Removing " + container + " failed: " + DockerClients.rootMessage(e));
      return e;
    }
  }
}
