package io.queenkv.operator.tls;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A cluster's own CA and the node certificates it signs. RSA 2048 keys (what every TLS stack reads
 * from PKCS#8), SHA-256 signatures. Uses the JDK's providers: BouncyCastle only builds the X.509
 * structures, so nothing needs a signed provider jar.
 */
public record CertificateAuthority(X509Certificate certificate, PrivateKey key) {
    static final String KEY_ALGORITHM = "RSA";
    static final int KEY_SIZE = 2048;
    static final String SIGNATURE = "SHA256withRSA";
    /** Back-dating of notBefore: nodes whose clocks are a little behind still accept a fresh certificate. */
    static final Duration CLOCK_SKEW = Duration.ofMinutes(5);

    /** A self-signed CA named {@code commonName}, valid from {@code now} for {@code validity}. */
    public static CertificateAuthority create(String commonName, Instant now, Duration validity, SecureRandom random) {
        KeyPair pair = keyPair(random);
        X500Name name = name(commonName);
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = builder(name, name, pair.getPublic(), now, validity, random)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
            return new CertificateAuthority(sign(b, pair.getPrivate()), pair.getPrivate());
        } catch (CertIOException | GeneralSecurityException e) {
            throw new IllegalStateException("could not create the CA certificate", e);
        }
    }

    /** A CA read back from its PEM certificate and PKCS#8 key. */
    public static CertificateAuthority fromPem(String certificatePem, String keyPem) {
        List<X509Certificate> certs = Pem.certificates(certificatePem);
        if (certs.isEmpty()) throw new IllegalArgumentException("no CA certificate");
        return new CertificateAuthority(certs.get(0), Pem.privateKey(keyPem, KEY_ALGORITHM));
    }

    /**
     * A certificate for server and client use (the node presents it on both ports and to its peers),
     * with {@code names} (DNS names, or IP addresses) as subject alternative names.
     */
    public IssuedCertificate issue(String commonName, List<String> names, Instant now, Duration validity, SecureRandom random) {
        List<String> dnsNames = names;
        if (dnsNames.isEmpty()) throw new IllegalArgumentException("a node certificate needs at least one DNS name");
        KeyPair pair = keyPair(random);
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            GeneralName[] sans = dnsNames.stream().map(CertificateAuthority::generalName).toArray(GeneralName[]::new);
            Instant notAfter = now.plus(validity);
            // Never outlive the CA: a chain with an expired CA does not verify.
            Duration capped = notAfter.isAfter(certificate.getNotAfter().toInstant())
                    ? Duration.between(now, certificate.getNotAfter().toInstant()) : validity;
            X509v3CertificateBuilder b = builder(X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded()),
                    name(commonName), pair.getPublic(), now, capped, random)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
                    .addExtension(Extension.extendedKeyUsage, false,
                            new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()))
                    .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(certificate));
            return new IssuedCertificate(sign(b, key), pair.getPrivate());
        } catch (CertIOException | GeneralSecurityException e) {
            throw new IllegalStateException("could not issue a certificate for " + dnsNames, e);
        }
    }

    /** Whether {@code cert} carries this CA's signature. */
    public boolean signed(X509Certificate cert) {
        try {
            cert.verify(certificate.getPublicKey());
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    public String certificatePem() { return Pem.certificate(certificate); }

    public String keyPem() { return Pem.privateKey(key); }

    private static GeneralName generalName(String dnsOrIp) {
        return dnsOrIp.matches("[0-9.]+|[0-9a-fA-F:]*:[0-9a-fA-F:]*")
                ? new GeneralName(GeneralName.iPAddress, dnsOrIp) : new GeneralName(GeneralName.dNSName, dnsOrIp);
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, PublicKey key, Instant now, Duration validity,
                                                    SecureRandom random) {
        BigInteger serial = new BigInteger(127, random).add(BigInteger.ONE);
        return new JcaX509v3CertificateBuilder(issuer, serial, Date.from(now.minus(CLOCK_SKEW)), Date.from(now.plus(validity)), subject, key);
    }

    private static X500Name name(String commonName) {
        return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "Queen KV").addRDN(BCStyle.CN, commonName).build();
    }

    private static KeyPair keyPair(SecureRandom random) {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance(KEY_ALGORITHM);
            g.initialize(KEY_SIZE, random);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey signer) throws GeneralSecurityException {
        try {
            ContentSigner s = new JcaContentSignerBuilder(SIGNATURE).build(signer);
            return new JcaX509CertificateConverter().getCertificate(b.build(s));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
    }
}
