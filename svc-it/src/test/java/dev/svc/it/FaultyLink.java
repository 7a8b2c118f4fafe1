package dev.svc.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on 127.0.0.1 between an agent and its server whose behaviour the test switches while
 * it runs: it passes bytes through untouched (TLS included), drops or refuses connections, stalls
 * them (reads and never answers), resets them (RST), or lets requests through and cuts the answers.
 * It counts the connections it was offered in each mode, with the time of each.
 *
 * <p>A mode applies to new connections and to the open ones: switching to {@link Mode#DROP} closes
 * them, to {@link Mode#RESET} resets them, to {@link Mode#STALL} turns them into black holes, to
 * {@link Mode#CUT_ANSWERS} holds back what the server sends from then on; switching back to
 * {@link Mode#PASS} resets the connections that lost bytes (their TLS stream is broken).
 */
final class FaultyLink implements AutoCloseable {

  enum Mode {
    /** Bytes pass both ways. */
    PASS,
    /** Connections are accepted and closed at once (FIN). */
    DROP,
    /** Nothing listens: the kernel refuses connections. */
    REFUSE,
    /** Connections are accepted and read; nothing is forwarded or answered. */
    STALL,
    /** Connections are accepted and reset (SO_LINGER 0, close: RST). */
    RESET,
    /**
     * The handshake passes and the client's bytes reach the server, but what the server sends after
     * the client's second flight (its answer) is held back until {@link #cutHeldAnswers()} resets
     * the connection: the server took the request, the client never hears so.
     */
    CUT_ANSWERS
  }

  /** One connection attempt the proxy saw: when (System.nanoTime) and in which mode. */
  record Attempt(long atNanos, Mode mode) {
  }

  private final InetSocketAddress target;
  private final int port;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final List<Attempt> attempts = new CopyOnWriteArrayList<>();
  private final AtomicLong stallsClosedByClient = new AtomicLong();
  private final AtomicLong answersCut = new AtomicLong();
  private volatile Mode mode = Mode.PASS;
  private volatile ServerSocket listener;
  private volatile boolean closed;

  private FaultyLink(int targetPort) throws IOException {
    this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
    this.listener = listen(0);
    this.port = listener.getLocalPort();
    startAccepting(listener);
  }

  /** A proxy on a free port of 127.0.0.1 to 127.0.0.1:{@code targetPort}, passing. */
  static FaultyLink to(int targetPort) {
    try {
      return new FaultyLink(targetPort);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  int port() {
    return port;
  }

  Mode mode() {
    return mode;
  }

  /** Switches the mode for new and open connections (see the class comment). */
  synchronized void mode(Mode next) {
    Mode before = mode;
    mode = next;
    if (before == Mode.REFUSE && next != Mode.REFUSE) {
      try {
        listener = listen(port);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("Could not listen on " + port + " again", e);
      }
      startAccepting(listener);
    }
    for (Link link : links) {
      switch (next) {
        case PASS -> {
          if (link.lostBytes()) {
            link.reset();
          }
        }
        case DROP -> link.close();
        case REFUSE, RESET -> link.reset();
        case STALL -> link.blackHole();
        case CUT_ANSWERS -> link.holdAnswers(false);
      }
    }
    if (next == Mode.REFUSE) {
      closeQuietly(listener);
    }
  }

  /** Resets the connections whose answers are held back; how many it cut. */
  int cutHeldAnswers() {
    int cut = 0;
    for (Link link : links) {
      if (link.heldBytes() > 0) {
        link.reset();
        cut++;
      }
    }
    answersCut.addAndGet(cut);
    return cut;
  }

  /** The connections held back right now with at least one byte of answer. */
  int holding() {
    return (int) links.stream().filter(l -> l.heldBytes() > 0).count();
  }

  List<Attempt> attempts() {
    return List.copyOf(attempts);
  }

  /** Attempts seen from {@code fromNanos} on, in modes other than PASS. */
  List<Attempt> faultedAttemptsSince(long fromNanos) {
    List<Attempt> out = new ArrayList<>();
    for (Attempt a : attempts) {
      if (a.atNanos() >= fromNanos && a.mode() != Mode.PASS) {
        out.add(a);
      }
    }
    return out;
  }

  long attemptsIn(Mode m) {
    return attempts.stream().filter(a -> a.mode() == m).count();
  }

  /** Stalled connections the client gave up on (its timeout fired and it closed them). */
  long stallsClosedByClient() {
    return stallsClosedByClient.get();
  }

  long answersCut() {
    return answersCut.get();
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(listener);
    links.forEach(Link::reset);
  }

  // --- accepting ---

  private static ServerSocket listen(int port) throws IOException {
    ServerSocket socket = new ServerSocket();
    socket.setReuseAddress(true);
    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    return socket;
  }

  private void startAccepting(ServerSocket on) {
    Thread thread = new Thread(() -> {
      while (!closed && !on.isClosed()) {
        Socket client;
        try {
          client = on.accept();
        } catch (IOException e) {
          return;
        }
        accepted(client);
      }
    }, "faulty-link-accept");
    thread.setDaemon(true);
    thread.start();
  }

  private synchronized void accepted(Socket client) {
    Mode now = mode;
    attempts.add(new Attempt(System.nanoTime(), now));
    switch (now) {
      case DROP, REFUSE -> closeQuietly(client);
      case RESET -> reset(client);
      case STALL -> new Link(client, null).start();
      case PASS, CUT_ANSWERS -> {
        Socket server = new Socket();
        try {
          server.connect(target, 5000);
        } catch (IOException e) {
          reset(client);
          closeQuietly(server);
          return;
        }
        Link link = new Link(client, server);
        if (now == Mode.CUT_ANSWERS) {
          link.holdAnswers(true);
        }
        link.start();
      }
    }
  }

  private static void reset(Socket socket) {
    try {
      socket.setSoLinger(true, 0);
    } catch (IOException e) {
      // already closed: nothing to reset
    }
    closeQuietly(socket);
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      if (c != null) {
        c.close();
      }
    } catch (IOException e) {
      // closing a broken socket: nothing left to do
    }
  }

  /** One client connection and, unless it stalls from the start, its connection to the server. */
  private final class Link {
    private final Socket client;
    private final Socket server;
    private volatile boolean blackHole;
    private volatile boolean holdAll;
    private volatile boolean holdAfterHandshake;
    private volatile boolean clientSecondFlight;
    private volatile boolean closing;
    private final AtomicLong serverBytes = new AtomicLong();
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong discarded = new AtomicLong();

    Link(Socket client, Socket server) {
      this.client = client;
      this.server = server;
      this.blackHole = server == null;
    }

    void start() {
      links.add(this);
      pump("faulty-link-up", () -> up());
      if (server != null) {
        pump("faulty-link-down", () -> down());
      }
    }

    private void pump(String name, IoRunnable body) {
      Thread thread = new Thread(() -> {
        try {
          body.run();
        } catch (IOException e) {
          // a reset or a closed socket ends the pump
        } finally {
          end();
        }
      }, name);
      thread.setDaemon(true);
      thread.start();
    }

    /** Client to server. */
    private void up() throws IOException {
      InputStream in = client.getInputStream();
      byte[] buffer = new byte[16 * 1024];
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (blackHole) {
          discarded.addAndGet(n);
          continue;
        }
        if (serverBytes.get() > 0) {
          // the client speaks again after the server's first flight: its request follows
          clientSecondFlight = true;
        }
        OutputStream out = server.getOutputStream();
        out.write(buffer, 0, n);
        out.flush();
      }
    }

    /** Server to client. */
    private void down() throws IOException {
      InputStream in = server.getInputStream();
      byte[] buffer = new byte[16 * 1024];
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (blackHole) {
          discarded.addAndGet(n);
          continue;
        }
        if (holdAll || (holdAfterHandshake && clientSecondFlight)) {
          held.addAndGet(n);
          continue;
        }
        serverBytes.addAndGet(n);
        OutputStream out = client.getOutputStream();
        out.write(buffer, 0, n);
        out.flush();
      }
      // the server closed its side: so does the client's
      client.shutdownOutput();
    }

    void blackHole() {
      blackHole = true;
    }

    /** Holds back what the server sends: from now on, or after the handshake of a new connection. */
    void holdAnswers(boolean afterHandshake) {
      if (afterHandshake) {
        holdAfterHandshake = true;
      } else {
        holdAll = true;
      }
    }

    long heldBytes() {
      return held.get();
    }

    boolean lostBytes() {
      return blackHole || held.get() > 0 || discarded.get() > 0 || holdAll || holdAfterHandshake;
    }

    void close() {
      closing = true;
      closeQuietly(client);
      closeQuietly(server);
      links.remove(this);
    }

    void reset() {
      closing = true;
      FaultyLink.reset(client);
      if (server != null) {
        FaultyLink.reset(server);
      }
      links.remove(this);
    }

    private void end() {
      if (server == null && !closing) {
        // a stalled connection that the client closed itself: its timeout fired
        stallsClosedByClient.incrementAndGet();
      }
      if (!closing) {
        close();
      }
      links.remove(this);
    }
  }

  @FunctionalInterface
  private interface IoRunnable {
    void run() throws IOException;
  }
}
