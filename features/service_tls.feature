Feature: Bearer tokens travel over TLS beyond this machine
  A server reachable from the network serves TLS with a certificate the operator gives it, and
  clients trust the CA that signed it. Plain text with a token is refused unless explicitly allowed.

  @SERVICE-019
  Scenario: A client that trusts the server's CA calls it over TLS with the token
    Given a TLS server with the token "tls-token-8f2c" and a certificate for localhost and 127.0.0.1
    Then a client trusting the server's CA lists runs with the token at 127.0.0.1 and at localhost
    And the same client without the token is UNAUTHENTICATED
    And "verity client list --tls-ca" with the token prints the runs

  @SERVICE-019
  Scenario: A plain-text client cannot talk to the TLS port
    Given a TLS server with the token "tls-token-8f2c" and a certificate for localhost and 127.0.0.1
    Then a plain-text client fails with UNAVAILABLE and is told to connect with --tls-ca

  @SERVICE-019
  Scenario: A client that trusts another CA fails with UNAVAILABLE naming the TLS handshake
    Given a TLS server with the token "tls-token-8f2c" and a certificate for localhost and 127.0.0.1
    Then a client trusting another CA fails with UNAVAILABLE naming the TLS handshake and the CA to check
    And streaming a run with that client fails at once instead of retrying
    And "verity client list" with the other CA exits with code 4 and the same explanation

  @SERVICE-019
  Scenario: A certificate with a key of another pair is refused at startup
    When the server is configured with one pair's certificate and another pair's key
    Then it refuses to start, naming the key file and the certificate

  @SERVICE-020
  Scenario: The server refuses a token in plain text beyond loopback unless --insecure is given
    When I run "verity serve --host 0.0.0.0" with a token but without TLS
    Then it exits with code 2 explaining that the token needs TLS or --insecure
    And the same flags with --insecure are accepted
    And the same flags with --tls-cert and --tls-key are accepted
    And a config file with tls_cert, tls_key and insecure is read relative to its folder

  @SERVICE-020
  Scenario: The client refuses to send a token in plain text to another host
    Then a client for "10.20.30.40:50051" with a token and no TLS is refused before it connects
    And the same client with insecure set is allowed
