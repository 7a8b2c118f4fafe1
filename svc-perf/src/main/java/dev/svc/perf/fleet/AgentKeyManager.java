package dev.svc.perf.fleet;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * One virtual agent's client certificate and key for the TLS handshake. Built from the key and
 * certificate objects the agent already holds, so that no key store is parsed per agent.
 */
final class AgentKeyManager extends X509ExtendedKeyManager {

  private static final String ALIAS = "agent";

  private final PrivateKey key;
  private final X509Certificate[] chain;

  AgentKeyManager(PrivateKey key, X509Certificate certificate) {
    this.key = key;
    this.chain = new X509Certificate[] {certificate};
  }

  private String alias(String[] keyTypes) {
    return keyTypes != null && Arrays.asList(keyTypes).contains(key.getAlgorithm()) ? ALIAS : null;
  }

  @Override
  public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
    return alias(keyTypes);
  }

  @Override
  public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
    return alias(keyTypes);
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return key.getAlgorithm().equals(keyType) ? new String[] {ALIAS} : null;
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    return ALIAS.equals(alias) ? chain.clone() : null;
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    return ALIAS.equals(alias) ? key : null;
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return null;
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return null;
  }
}
