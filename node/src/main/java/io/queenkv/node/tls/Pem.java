package io.queenkv.node.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the PEM files of transport security. Every failure is a {@link TlsFileException} whose
 * message is one line naming the variable and the file.
 */
final class Pem {
    private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*)-----END \\1-----");
    /** What the key file holds when it is not PKCS#8, and how to convert it. */
    private static final String TO_PKCS8 = "; convert it to PKCS#8 with `openssl pkcs8 -topk8 -nocrypt -in key.pem -out key.pkcs8.pem`";

    private Pem() {}

    /** A refusal of one of the TLS files, with a one-line message for the operator. */
    static final class TlsFileException extends Exception {
        TlsFileException(String variable, Path file, String problem) {
            super(variable + "=" + file + ": " + problem);
        }
    }

    /** Every {@code CERTIFICATE} block of the file, in file order; at least one. */
    static List<X509Certificate> certificates(String variable, Path file) throws TlsFileException {
        List<X509Certificate> out = new ArrayList<>();
        try {
            CertificateFactory x509 = CertificateFactory.getInstance("X.509");
            for (Block b : blocks(variable, file)) {
                if (!b.type().equals("CERTIFICATE")) continue;
                out.add((X509Certificate) x509.generateCertificate(new ByteArrayInputStream(b.der())));
            }
        } catch (GeneralSecurityException e) {
            throw new TlsFileException(variable, file, "holds a certificate that cannot be read (" + e.getMessage() + ")");
        }
        if (out.isEmpty()) throw new TlsFileException(variable, file, "holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
        return out;
    }

    /** The one unencrypted PKCS#8 private key ({@code PRIVATE KEY} block), RSA or EC. */
    static PrivateKey privateKey(String variable, Path file) throws TlsFileException {
        List<Block> keys = new ArrayList<>();
        for (Block b : blocks(variable, file)) {
            switch (b.type()) {
                case "PRIVATE KEY" -> keys.add(b);
                case "RSA PRIVATE KEY" -> throw new TlsFileException(variable, file, "holds a PKCS#1 RSA key" + TO_PKCS8);
                case "EC PRIVATE KEY" -> throw new TlsFileException(variable, file, "holds a SEC1 EC key" + TO_PKCS8);
                case "ENCRYPTED PRIVATE KEY" -> throw new TlsFileException(variable, file, "holds an encrypted key; the node needs it unencrypted" + TO_PKCS8);
                default -> { } // e.g. EC PARAMETERS before the key
            }
        }
        if (keys.size() != 1)
            throw new TlsFileException(variable, file, keys.isEmpty() ? "holds no PEM private key (-----BEGIN PRIVATE KEY-----)" : "holds more than one private key");
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(keys.get(0).der());
        for (String algorithm : List.of("RSA", "EC")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new TlsFileException(variable, file, "holds a private key that is neither RSA nor EC");
    }

    private record Block(String type, byte[] der) {}

    private static List<Block> blocks(String variable, Path file) throws TlsFileException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new TlsFileException(variable, file, "cannot be read (" + e.getMessage() + ")");
        }
        List<Block> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            try {
                out.add(new Block(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
            } catch (IllegalArgumentException e) {
                throw new TlsFileException(variable, file, "holds a PEM block that is not valid base64");
            }
        }
        return out;
    }
}
