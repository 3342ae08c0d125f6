package io.queenkv.node.tls;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.GeneralSecurityException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.queenkv.node.config.NodeConfig.ConfigException;
import io.queenkv.node.config.NodeConfig.TlsFiles;
import io.queenkv.node.tls.Pem.TlsFileException;

/**
 * The node's TLS identity and the cluster CA, from the three PEM files, for both the Raft link
 * (mutual TLS) and the HTTPS port. Its key manager and trust manager look at the files' size and
 * modification time at the start of every handshake and re-read them when they changed, so a
 * certificate or CA bundle renewed on disk is used by the next connection without a restart;
 * connections already open keep the certificate they started with. Files that do not fit together
 * (e.g. a new certificate whose key is not written yet) are refused with a warning, and the last
 * good reading stays in use.
 */
public final class NodeTls {
    private static final Logger LOG = LoggerFactory.getLogger(NodeTls.class);

    private final TlsFiles files;
    private final AtomicLong readings = new AtomicLong(1);
    private final KeyManager keyManager = new KeyManager();
    private final TrustManager trustManager = new TrustManager();
    private volatile TlsMaterial current;
    /** The reading before {@link #current}: a handshake that chose its alias just before a reload still finds its key. */
    private volatile TlsMaterial previous;
    private volatile FileStamp currentStamp;
    /** The files' state at the last reading that failed; retried only once they change again. */
    private volatile FileStamp refusedStamp;

    private NodeTls(TlsFiles files, FileStamp stamp, TlsMaterial first) {
        this.files = files;
        this.currentStamp = stamp;
        this.current = first;
        this.previous = first;
    }

    /** Reads the files; a problem stops start-up with a one-line message naming the variable and file. */
    public static NodeTls load(TlsFiles files) {
        try {
            FileStamp stamp = FileStamp.of(files);
            NodeTls tls = new NodeTls(files, stamp, TlsMaterial.read(files, "queen-kv-1"));
            LOG.info("TLS on: serving {}", tls.current.describe());
            return tls;
        } catch (TlsFileException e) {
            throw new ConfigException(e.getMessage());
        } catch (IOException e) {
            throw new ConfigException("the TLS files cannot be read: " + e.getMessage());
        }
    }

    /** Presents this node's certificate, as a server and as a client. */
    public X509ExtendedKeyManager keyManager() {
        return keyManager;
    }

    /** Accepts certificates issued by a CA of the cluster CA bundle. */
    public X509ExtendedTrustManager trustManager() {
        return trustManager;
    }

    /** A TLS context with both managers, for the HTTPS port. */
    public SSLContext sslContext() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(new javax.net.ssl.KeyManager[] {keyManager}, new javax.net.ssl.TrustManager[] {trustManager}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot make a TLS context", e);
        }
    }

    /** Re-reads the files if their size or modification time changed since the last reading. */
    private void refreshIfChanged() {
        FileStamp now;
        try {
            now = FileStamp.of(files);
        } catch (IOException e) {
            return; // a file is being replaced right now; the next handshake looks again
        }
        if (now.equals(currentStamp) || now.equals(refusedStamp)) return;
        synchronized (this) {
            if (now.equals(currentStamp) || now.equals(refusedStamp)) return;
            try {
                TlsMaterial next = TlsMaterial.read(files, "queen-kv-" + readings.incrementAndGet());
                previous = current;
                current = next;
                currentStamp = now;
                refusedStamp = null;
                LOG.info("TLS files changed: new connections get {}", next.describe());
            } catch (TlsFileException e) {
                refusedStamp = now;
                LOG.warn("TLS files changed but cannot be used, keeping {}: {}", current.describe(), e.getMessage());
            }
        }
    }

    private TlsMaterial byAlias(String alias) {
        TlsMaterial c = current, p = previous;
        if (c.alias().equals(alias)) return c;
        if (p.alias().equals(alias)) return p;
        return null;
    }

    /** The alias of the current key when it fits the key type the TLS stack asks for ("RSA", "EC", "EC_EC", …). */
    private String aliasFor(String keyType) {
        refreshIfChanged();
        TlsMaterial m = current;
        String algorithm = m.key().getAlgorithm();
        return keyType != null && (keyType.equals(algorithm) || keyType.startsWith(algorithm + "_")) ? m.alias() : null;
    }

    /**
     * The certificate issuers a peer accepts are not consulted: during a CA rotation a peer may still
     * name only the old CA while already trusting the new one, and the handshake decides anyway.
     */
    private String aliasFor(String[] keyTypes) {
        if (keyTypes == null) return null;
        for (String type : keyTypes) {
            String alias = aliasFor(type);
            if (alias != null) return alias;
        }
        return null;
    }

    private final class KeyManager extends X509ExtendedKeyManager {
        @Override public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) { return aliasFor(keyType); }
        @Override public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) { return aliasFor(keyType); }
        @Override public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) { return aliasFor(keyTypes); }
        @Override public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) { return aliasFor(keyTypes); }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            String alias = aliasFor(keyType);
            return alias == null ? null : new String[] {alias};
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return getServerAliases(keyType, issuers);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            TlsMaterial m = byAlias(alias);
            return m == null ? null : m.chain().clone();
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            TlsMaterial m = byAlias(alias);
            return m == null ? null : m.key();
        }
    }

    /** Delegates to the JDK's PKIX trust manager of the current CA bundle (which also checks host names where asked). */
    private final class TrustManager extends X509ExtendedTrustManager {
        private X509ExtendedTrustManager delegate() {
            refreshIfChanged();
            return current.trust();
        }

        @Override public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException { delegate().checkClientTrusted(chain, authType); }
        @Override public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException { delegate().checkServerTrusted(chain, authType); }
        @Override public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException { delegate().checkClientTrusted(chain, authType, socket); }
        @Override public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException { delegate().checkServerTrusted(chain, authType, socket); }
        @Override public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException { delegate().checkClientTrusted(chain, authType, engine); }
        @Override public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException { delegate().checkServerTrusted(chain, authType, engine); }
        @Override public X509Certificate[] getAcceptedIssuers() { return delegate().getAcceptedIssuers(); }
    }

    /** Size and modification time of the three files: a cheap sign that they were rewritten. */
    private record FileStamp(List<String> parts) {
        static FileStamp of(TlsFiles files) throws IOException {
            List<String> parts = new ArrayList<>(3);
            for (Path p : List.of(files.certificate(), files.privateKey(), files.ca())) {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                parts.add(a.lastModifiedTime().to(TimeUnit.NANOSECONDS) + "/" + a.size());
            }
            return new FileStamp(parts);
        }
    }
}
