package dev.svc.core.tls;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.interfaces.RSAPublicKey;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.operator.ContentVerifierProvider;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.bouncycastle.pkcs.PKCSException;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequest;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;

/** Agents keep their private key to themselves and send the server a signed PKCS#10 request instead. */
public final class Csr {

  private static final int MIN_RSA_BITS = 2048;

  private Csr() {
  }

  /** A PEM {@code CERTIFICATE REQUEST} for {@code CN=<commonName>}, signed with the pair's private key. */
  public static String create(KeyPair keyPair, String commonName) {
    if (commonName == null || commonName.isBlank()) {
      throw new IllegalArgumentException("The common name of a certificate request must not be blank.");
    }
    X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, commonName).build();
    try {
      var signer = new JcaContentSignerBuilder(Keys.signatureAlgorithm(keyPair.getPrivate()))
          .build(keyPair.getPrivate());
      var request = new JcaPKCS10CertificationRequestBuilder(subject, keyPair.getPublic()).build(signer);
      return Pem.encode(Pem.CERTIFICATE_REQUEST, request.getEncoded());
    } catch (OperatorCreationException | IOException e) {
      throw new IllegalStateException("Could not build the certificate request", e);
    }
  }

  /** The parsed request, only when its signature proves the sender holds the private key. */
  static PKCS10CertificationRequest parseVerified(String pem) {
    PKCS10CertificationRequest request = (PKCS10CertificationRequest) Pem.first(
        pem, "certificate signing request (CERTIFICATE REQUEST)", PKCS10CertificationRequest.class);
    PublicKey publicKey;
    boolean signatureValid;
    try {
      publicKey = new JcaPKCS10CertificationRequest(request).getPublicKey();
      ContentVerifierProvider verifier = new JcaContentVerifierProviderBuilder().setProvider(Keys.signatures())
          .build(publicKey);
      signatureValid = request.isSignatureValid(verifier);
    } catch (OperatorCreationException | PKCSException | GeneralSecurityException
        | RuntimeException e) {
      throw new IllegalArgumentException(
          "The certificate signing request could not be verified: its key or signature is malformed or unsupported.",
          e);
    }
    if (!signatureValid) {
      throw new IllegalArgumentException(
          "The certificate signing request's signature does not match its public key, so it was altered or forged.");
    }
    if (publicKey instanceof RSAPublicKey rsa && rsa.getModulus().bitLength() < MIN_RSA_BITS) {
      throw new IllegalArgumentException(
          "The certificate signing request uses an RSA key shorter than " + MIN_RSA_BITS + " bits.");
    }
    return request;
  }
}
