package dev.svc.server.cli;

import dev.svc.core.home.PrivateFiles;
import dev.svc.core.home.SvcHome;
import dev.svc.core.tls.CertificateAuthority;
import dev.svc.core.tls.IssuedKeyPair;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** `svc certs`: the server's CA and agent client certificates. */
@Command(name = "certs", mixinStandardHelpOptions = true, description = "Manage the server's CA and agent certificates.",
    subcommands = {CertsCommand.IssueAgent.class, CertsCommand.Fingerprint.class})
public final class CertsCommand implements Runnable {

  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  /** Issues a client certificate and key for an agent, signed by the server's CA. */
  @Command(name = "issue-agent", mixinStandardHelpOptions = true,
      description = "Issue a client certificate for an agent (writes client.pem, client-key.pem and ca.pem).")
  static final class IssueAgent implements Callable<Integer> {

    @Parameters(index = "0", description = "Agent name (the certificate's CN).")
    String name;

    @Option(names = "--home", description = "svc home directory (default: ~/.svc).")
    Path home;

    @Option(names = "--out", description = "Output directory (default: <home>/certs/agents/<name>).")
    Path out;

    @Override
    public Integer call() throws Exception {
      SvcHome svcHome = home != null ? new SvcHome(home) : SvcHome.defaultHome();
      CertificateAuthority ca = CertificateAuthority.loadOrCreate(svcHome.certs());
      IssuedKeyPair issued;
      try {
        issued = ca.issueClientKeyPair(name);
      } catch (IllegalArgumentException e) {
        System.err.println(e.getMessage());
        return 2;
      }
      Path dir = out != null ? out : svcHome.certs().resolve("agents").resolve(name);
      PrivateFiles.createMissing(dir);
      Path cert = dir.resolve("client.pem");
      Path key = dir.resolve("client-key.pem");
      Files.writeString(cert, issued.certificatePem());
      // owner-only from the first byte: written then narrowed, another user could open it in between
      PrivateFiles.write(key, issued.privateKeyPem());
      Files.writeString(dir.resolve("ca.pem"), issued.caCertificatePem());
      System.out.println("Issued a client certificate for agent '" + name + "' (valid until " + issued.notAfter() + ")");
      System.out.println("  certificate: " + cert);
      System.out.println("  private key: " + key);
      System.out.println("  CA:          " + dir.resolve("ca.pem"));
      System.out.println("Copy them to the agent and point tls.cert, tls.key and tls.ca in its agent.yaml at them.");
      return 0;
    }
  }

  /** Prints the CA fingerprint. */
  @Command(name = "fingerprint", mixinStandardHelpOptions = true, description = "Print the CA's SHA-256 fingerprint.")
  static final class Fingerprint implements Callable<Integer> {

    @Option(names = "--home", description = "svc home directory (default: ~/.svc).")
    Path home;

    @Override
    public Integer call() {
      SvcHome svcHome = home != null ? new SvcHome(home) : SvcHome.defaultHome();
      System.out.println(CertificateAuthority.loadOrCreate(svcHome.certs()).fingerprint());
      return 0;
    }
  }
}
