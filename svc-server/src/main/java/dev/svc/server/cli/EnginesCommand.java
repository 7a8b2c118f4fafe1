package dev.svc.server.cli;

import com.github.dockerjava.api.DockerClient;
import dev.svc.core.CpuArch;
import dev.svc.core.home.SvcHome;
import dev.svc.engines.Compatibility;
import dev.svc.engines.EngineCatalog;
import dev.svc.engines.EngineSpec;
import dev.svc.engines.NativeCommand;
import dev.svc.engines.Verdict;
import dev.svc.engines.lifecycle.BinaryLookup;
import dev.svc.engines.lifecycle.DockerClients;
import dev.svc.engines.lifecycle.EngineImages;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** `svc engines`: the engine catalog, what this host has of it, and getting an engine's image. */
@Command(name = "engines", mixinStandardHelpOptions = true,
    description = "List the engines and their native commands, check them on this host, and set up their images.",
    subcommands = {EnginesCommand.ListEngines.class, EnginesCommand.Check.class, EnginesCommand.Setup.class,
        EmulateCommand.class})
public final class EnginesCommand implements Runnable {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Options every engines subcommand takes. */
  static class Common {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--home", description = "svc home directory, whose engines.yaml overrides the catalog (default: ~/.svc).")
    Path home;

    @Option(names = "--arch", description = "Architecture to answer for: amd64 (x86_64) or arm64 (default: this machine's).")
    String arch;

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    PrintWriter err() {
      return spec.commandLine().getErr();
    }

    EngineCatalog catalog() {
      try {
        return EngineCatalog.load(home != null ? new SvcHome(home) : SvcHome.defaultHome());
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
    }

    CpuArch architecture() {
      if (arch == null) {
        return CpuArch.ofThisMachine();
      }
      return CpuArch.parse(arch).orElseThrow(() -> new CommandLine.ParameterException(spec.commandLine(),
          "Unknown architecture '" + arch + "': use amd64 (x86_64) or arm64 (aarch64)."));
    }

    static String imageOrReason(EngineSpec engine, CpuArch arch) {
      return engine.image(arch).orElse("(none: " + engine.incompatibleReason(arch).orElse("") + ")");
    }
  }

  /** The catalog as this host sees it. */
  @Command(name = "list", mixinStandardHelpOptions = true,
      description = {"List the engines: image, port, health check, formats, API, and the native command "
          + "(svc run --native) with where its binary is on this host.",
          "NATIVE COMMAND is 'none' for an engine that cannot run natively; NATIVE BINARY is the binary's "
          + "absolute path, 'not found', or '-'. Nothing is started."})
  static final class ListEngines extends Common implements Callable<Integer> {
    @Override
    public Integer call() {
      CpuArch here = architecture();
      BinaryLookup lookup = BinaryLookup.system();
      Table table = new Table("ENGINE", "IMAGE (" + here.displayName() + ")", "PORT", "HEALTH", "FORMATS", "API",
          "NATIVE COMMAND", "NATIVE BINARY");
      for (EngineSpec engine : catalog().all()) {
        Optional<NativeCommand> command = engine.nativeCommand();
        table.row(engine.name(), imageOrReason(engine, here), Integer.toString(engine.defaultPort()),
            "GET " + engine.healthPath() + " -> " + engine.healthSuccess().wireName(),
            String.join(",", engine.formatNames()), engine.api().wireName(),
            command.map(NativeCommand::template).orElse("none"),
            command.map(c -> lookup.find(c.binary()).map(Path::toString).orElse("not found")).orElse("-"));
      }
      table.print(out());
      return 0;
    }
  }

  /** Per engine: is the image on this Docker host, and may the engine run on this architecture. */
  @Command(name = "check", mixinStandardHelpOptions = true,
      description = "Per engine: whether its image is present, the architecture, and whether it is compatible here.")
  static final class Check extends Common implements Callable<Integer> {
    @Override
    public Integer call() throws IOException {
      CpuArch here = architecture();
      EngineCatalog catalog = catalog();
      try (DockerClient docker = DockerClients.connect()) {
        Optional<String> unreachable = reachability(docker);
        unreachable.ifPresent(reason -> out().println("Docker: " + reason));
        EngineImages images = new EngineImages(docker);
        Table table = new Table("ENGINE", "IMAGE", "PRESENT", "ARCH", "COMPATIBLE");
        for (EngineSpec engine : catalog.all()) {
          Verdict verdict = Compatibility.checkPlatform(engine, here);
          String present = engine.image(here)
              .map(image -> unreachable.isPresent() ? "unknown" : presence(images, image, here))
              .orElse("-");
          table.row(engine.name(), imageOrReason(engine, here), present, here.displayName(),
              verdict.compatible() ? "yes" : "no: " + verdict.reason());
        }
        table.print(out());
        return unreachable.isPresent() ? 1 : 0;
      }
    }
  }

  /** "yes", "no", or "yes (arm64 image)" when the local image is built for another architecture. */
  static String presence(EngineImages images, String image, CpuArch arch) {
    return images.inspect(image)
        .map(found -> {
          Optional<CpuArch> built = CpuArch.parse(found.getArch());
          return built.isEmpty() || built.get() == arch ? "yes" : "yes (" + built.get().wireName() + " image)";
        })
        .orElse("no");
  }

  /** Gets an engine's image onto this Docker host. */
  @Command(name = "setup", mixinStandardHelpOptions = true,
      description = "Pull an engine's image from its registry unless it is already present.")
  static final class Setup extends Common implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "<engine>", description = "The engine: vllm, tgi, llama_cpp or ollama.")
    String engineName;

    @Option(names = "--dry-run", description = "Print the steps without changing anything.")
    boolean dryRun;

    @Override
    public Integer call() throws IOException {
      EngineCatalog catalog = catalog();
      CpuArch here = architecture();
      Optional<EngineSpec> found = catalog.find(engineName);
      if (found.isEmpty()) {
        err().println("Unknown engine '" + engineName + "' (known: " + String.join(", ", catalog.names()) + ").");
        return 2;
      }
      EngineSpec engine = found.get();
      Verdict platform = Compatibility.checkPlatform(engine, here);
      if (!platform.compatible()) {
        err().println(platform.reason());
        return 1;
      }
      String image = engine.image(here).orElseThrow();
      String registry = EngineImages.registryOf(image);
      try (DockerClient docker = DockerClients.connect()) {
        Optional<String> unreachable = reachability(docker);
        if (dryRun) {
          out().println("Setup of " + engine.name() + " on " + here.displayName() + " (dry run: nothing is changed)");
          List<String> steps = new ArrayList<>();
          if (unreachable.isPresent()) {
            steps.add("Check for " + image + " on this Docker host: cannot tell (" + unreachable.get() + ")");
            steps.add("Pull " + image + " from " + registry + " if it is absent (docker pull " + image + ")");
          } else if (new EngineImages(docker).isPresent(image)) {
            steps.add("Check for " + image + " on this Docker host: present");
            steps.add("Nothing to pull: the image is present");
          } else {
            steps.add("Check for " + image + " on this Docker host: absent");
            steps.add("Pull " + image + " from " + registry + " (docker pull " + image + ")");
          }
          for (int i = 0; i < steps.size(); i++) {
            out().println("  " + (i + 1) + ". " + steps.get(i));
          }
          return 0;
        }
        if (unreachable.isPresent()) {
          err().println("Docker: " + unreachable.get());
          return 1;
        }
        try {
          new EngineImages(docker).ensure(image, line -> {
            out().println(line);
            out().flush();
          });
        } catch (IllegalStateException e) {
          err().println(e.getMessage());
          return 1;
        }
        out().println(engine.name() + " is set up: " + image + " is on this Docker host.");
        return 0;
      }
    }
  }

  /** Empty when the daemon answers, else why it does not. */
  static Optional<String> reachability(DockerClient docker) {
    try {
      DockerClients.requireReachable(docker);
      return Optional.empty();
    } catch (IllegalStateException e) {
      return Optional.of(e.getMessage());
    }
  }

  /** Left-aligned columns, two spaces apart. */
  static final class Table {
    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
      rows.add(header);
    }

    void row(String... cells) {
      rows.add(cells);
    }

    void print(PrintWriter out) {
      int columns = rows.get(0).length;
      int[] widths = new int[columns];
      for (String[] row : rows) {
        for (int i = 0; i < columns; i++) {
          widths[i] = Math.max(widths[i], row[i].length());
        }
      }
      for (String[] row : rows) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < columns; i++) {
          line.append(i == columns - 1 ? row[i] : String.format("%-" + widths[i] + "s  ", row[i]));
        }
        out.println(line.toString().stripTrailing());
      }
      out.flush();
    }
  }
}
