package dev.svc.server.cluster;

import dev.svc.server.store.ClaimStore;
import io.vertx.core.Deployable;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verticles of which a deployment runs one (campaign executor, sweeps, housekeeping). A single
 * node deploys them at start. In a cluster, the node holding the {@value #CLAIM} claim in the
 * shared database runs them: every node tries to take or renew it on a timer; the holder deploys
 * them, and undeploys them when it loses the claim or cannot renew it before it would expire (so
 * two nodes never run them at once, whatever the network does). A dead holder stops renewing, and
 * another node takes over once its claim expires; they resume from the database.
 */
public final class Singletons extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(Singletons.class);

  /** The name of the singletons' claim. */
  public static final String CLAIM = "singletons";

  private final Supplier<List<Deployable>> verticles;
  private final ClaimStore claims;
  private final String holder;
  private final ClusterSettings settings;
  private final List<String> deployed = new ArrayList<>();
  private long timer = -1;
  private volatile boolean running;
  private Future<Void> inFlight = Future.succeededFuture();
  private boolean stopped;
  /** When the claim was last taken or renewed (nanoTime), for giving it up before it expires. */
  private long heldSince;
  private volatile String lastHolder;

  private Singletons(Supplier<List<Deployable>> verticles, ClaimStore claims, String holder,
      ClusterSettings settings) {
    this.verticles = verticles;
    this.claims = claims;
    this.holder = holder;
    this.settings = settings;
  }

  /** Runs the verticles here for good: a single node runs them all the time. */
  public static Singletons here(Supplier<List<Deployable>> verticles) {
    return new Singletons(verticles, null, null, null);
  }

  /** Runs the verticles whenever this node holds the claim, as {@code holder}. */
  public static Singletons underClaim(Supplier<List<Deployable>> verticles, ClaimStore claims, String holder,
      ClusterSettings settings) {
    return new Singletons(verticles, claims, holder, settings);
  }

  /** The first attempt at the claim is made before the deployment completes, so a lone node starts with them running. */
  @Override
  public Future<?> start() {
    if (claims == null) {
      return deployAll();
    }
    return tryHold().onSuccess(v -> timer = vertx.setPeriodic(settings.claimRenewMs(), id -> {
      fence();
      tryHold();
    }));
  }

  /** Gives the singletons up when the claim was not renewed in time, even while a renewal still hangs. */
  private void fence() {
    long heldMs = (System.nanoTime() - heldSince) / 1_000_000;
    if (running && heldMs > settings.claimTtlMs() - settings.claimRenewMs()) {
      LOG.warn("The singletons' claim was not renewed for {} ms: stopping them here before it expires", heldMs);
      undeployAll();
    }
  }

  /** This verticle's deployment, null before it is deployed. */
  public String deploymentId() {
    return context == null ? null : context.deploymentID();
  }

  /** Whether the singletons run on this node now. */
  public boolean runningHere() {
    return running;
  }

  /** The node id holding the claim when this node last looked (its own when it holds it); null when single-node. */
  public String holder() {
    return running && claims != null ? holder : lastHolder;
  }

  private Future<Void> tryHold() {
    if (!inFlight.isComplete() || stopped) {
      return inFlight;
    }
    long attempt = System.nanoTime();
    inFlight = claims.hold(CLAIM, holder, Duration.ofMillis(settings.claimTtlMs())).compose(held -> {
      if (held) {
        heldSince = attempt;
        lastHolder = holder;
        if (!running) {
          LOG.info("This node ({}) holds the singletons' claim: starting the campaign executor, sweeps and housekeeping",
              holder);
          return deployAll();
        }
        return Future.succeededFuture();
      }
      return claims.read(CLAIM).compose(claim -> {
        lastHolder = claim.map(ClaimStore.Claim::holder).orElse(null);
        if (running) {
          LOG.warn("Node {} took the singletons' claim: stopping them here", lastHolder);
          return undeployAll();
        }
        return Future.succeededFuture();
      });
    }).recover(err -> {
      // the next timer gives the singletons up if this goes on until the claim would expire
      LOG.warn("The singletons' claim could not be renewed: {}", err.toString());
      return Future.succeededFuture();
    });
    return inFlight;
  }

  private Future<Void> deployAll() {
    running = true;
    Future<Void> chain = Future.succeededFuture();
    for (Deployable verticle : verticles.get()) {
      chain = chain.compose(v -> vertx.deployVerticle(verticle)).map(id -> {
        deployed.add(id);
        return null;
      });
    }
    return chain;
  }

  private Future<Void> undeployAll() {
    running = false;
    List<String> ids = new ArrayList<>(deployed);
    deployed.clear();
    Future<Void> chain = Future.succeededFuture();
    for (int i = ids.size() - 1; i >= 0; i--) {
      String id = ids.get(i);
      chain = chain.compose(v -> vertx.undeploy(id).recover(err -> Future.succeededFuture()));
    }
    return chain;
  }

  /** Stops the singletons here and, in a cluster, gives the claim up so another node takes over at once. */
  @Override
  public Future<?> stop() {
    stopped = true;
    vertx.cancelTimer(timer);
    return inFlight.transform(ar -> {
      boolean held = running && claims != null;
      return undeployAll().compose(v -> held ? claims.release(CLAIM, holder) : Future.succeededFuture())
        .recover(err -> {
          LOG.warn("The singletons' claim was not released ({}): another node takes it when it expires", err.toString());
          return Future.succeededFuture();
        });
    });
  }
}
