package dev.svc.agent.cli;

import com.github.dockerjava.api.DockerClient;
import dev.svc.agent.config.AgentConfig;
import dev.svc.agent.config.AgentHome;
import dev.svc.agent.ops.ImageBuild;
import dev.svc.agent.ops.OpsOptions;
import dev.svc.agent.ops.Preflight;
import dev.svc.engines.lifecycle.DockerClients;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code svc-agent preflight}. */
@Command(name = "preflight", mixinStandardHelpOptions = true, description = {
    "Check this host's prerequisites and print them as a table; exit 1 when a required check fails.",
    "On a host without an NVIDIA GPU (none listed by nvidia-smi, none on the PCI bus) the GPU rows are N/A: "
        + "engines run on the CPU."})
public final class PreflightCommand implements Callable<Integer> {

  @Mixin
  HomeOptions homeOptions = new HomeOptions();

  @Override
  public Integer call() {
    AgentHome agentHome = homeOptions.home();
    AgentConfig agentConfig;
    try {
      agentConfig = AgentConfig.load(homeOptions.configFile());
    } catch (RuntimeException e) {
      System.err.println("svc-agent preflight: " + e.getMessage());
      return 1;
    }
    return check(agentHome, agentConfig, System.out, System.err);
  }

  /** Runs the checks and prints the table (also for {@code start --preflight}); 0 when every required check holds. Blocking. */
  public static int check(AgentHome home, AgentConfig config, PrintStream out, PrintStream err) {
    OpsOptions.quietDockerTransport();
    Vertx vertx = Vertx.vertx();
    try (DockerClient docker = DockerClients.connect()) {
      List<Preflight.Row> rows = new Preflight(config, vertx, () -> docker,
          ImageBuild.tags(home.settingsCache(), List.of())).run();
      out.print(Preflight.table(rows));
      out.flush();
      if (!Preflight.passed(rows)) {
        err.println("svc-agent preflight: required check failed: "
            + rows.stream().filter(Preflight.Row::failsPreflight).map(Preflight.Row::check).collect(Collectors.joining(", ")));
        return 1;
      }
      out.println("All required checks hold.");
      return 0;
    } catch (IOException e) {
      err.println("svc-agent preflight: " + e.getMessage());
      return 1;
    } finally {
      vertx.close().await();
    }
  }
}
