package dev.svc.agent.logs;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Optional;

/** This machine's own addresses, for tests that need a caller the agent does not see as loopback. */
public final class HostAddress {

  private HostAddress() {
  }

  /** The first non-loopback, non-link-local IPv4 address of an interface that is up, if there is one. */
  public static Optional<String> nonLoopbackIpv4() throws SocketException {
    return NetworkInterface.networkInterfaces().filter(HostAddress::up).flatMap(NetworkInterface::inetAddresses)
        .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()
            && !a.isAnyLocalAddress())
        .map(InetAddress::getHostAddress).findFirst();
  }

  private static boolean up(NetworkInterface nic) {
    try {
      return nic.isUp() && !nic.isLoopback();
    } catch (SocketException e) {
      return false;
    }
  }
}
