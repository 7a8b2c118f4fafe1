package dev.svc.agent.engine;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Container;
import dev.svc.engines.lifecycle.ContainerPlan;
import dev.svc.engines.lifecycle.DockerClients;
import java.util.List;
import java.util.function.Consumer;

/**
 * Finds the containers one run started by the {@code dev.svc.run=<command id>} label: the
 * benchmark container the agent creates carries it, and {@code svc run} puts it on the engine
 * container when the agent hands it {@code SVC_RUN_ID} — so no other agent's containers are
 * touched, even on the same host. Blocking.
 */
final class RunContainers {

  private RunContainers() {
  }

  static List<Container> list(DockerClient docker, String commandId) {
    return docker.listContainersCmd().withShowAll(true)
        .withLabelFilter(java.util.Map.of(ContainerPlan.RUN_LABEL, commandId)).exec();
  }

  /** Force-removes them (a running one is killed); returns how many were removed. */
  static int remove(DockerClient docker, String commandId, Consumer<String> log) {
    int removed = 0;
    for (Container container : list(docker, commandId)) {
      String name = container.getNames() != null && container.getNames().length > 0 ? container.getNames()[0] : container.getId();
      try {
        docker.removeContainerCmd(container.getId()).withForce(true).withRemoveVolumes(true).exec();
        log.accept("Removed container " + name.replaceFirst("^/", "") + " of this run");
        removed++;
      } catch (NotFoundException e) {
        // gone meanwhile: what we wanted
      } catch (RuntimeException e) {
        log.accept("Could not remove container " + name + ": " + e.getMessage());
      }
    }
    return removed;
  }

  /**
   * Removes them until a listing finds none (a container being created as the run was stopped
   * appears a moment later), within a deadline.
   *
   * @return true when a listing found none left; false when Docker could not be asked, or some
   *     were still there at the deadline
   */
  static boolean sweep(DockerClient docker, String commandId, long deadlineNanos, Consumer<String> log) {
    while (true) {
      try {
        if (remove(docker, commandId, log) == 0 && list(docker, commandId).isEmpty()) {
          return true;
        }
      } catch (RuntimeException e) {
        log.accept("Could not list this run's containers: " + DockerClients.rootMessage(e));
        return false;
      }
      if (System.nanoTime() > deadlineNanos) {
        return false;
      }
    }
  }
}
