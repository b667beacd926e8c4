#!/usr/bin/env escript
%% -*- erlang -*-
%%
%% A driver of ejabberd's ACME client library (Debian's erlang-p1-acme, unmodified; processone's
%% p1_acme over OTP's httpc, public_key and erlang-jose), used through its API: p1_acme:issue/4 and
%% p1_acme:revoke/4. Each issue/4 is the library's whole flow in one call: directory, newNonce,
%% newAccount (terms agreed, the given contact), newOrder, the authorizations, its challenge_fun
%% (given every pending http-01 challenge at once, which writes the key authorizations under
%% --webroot, served by the test on the server's http-01 port), the challenge responses, order
%% polling, finalization with its own CSR and key, download, and the check of the chain against
%% `ca_certs`. It runs: a two-name EC certificate under a generated P-256 account key (ES256), a
%% two-name RSA certificate under an RSA account key (RS256), an order whose challenge is left
%% unanswered, and revocation of the EC certificate with its own key (the library's only way),
%% then again. It prints one JSON summary on stdout and exits 1 (with "error" in the summary) when
%% a step fails. Run by acme-erlang-client.int-spec.ts.
%%
%% Configuration only: p1_acme passes no TLS options to httpc, and OTP 25's httpc then connects
%% with verify_none; the default httpc profile's socket_opts (which httpc hands to ssl:connect)
%% make it verify the server against --ca (tls_options/1). The library has no EAB, no key
%% rollover, no account update or deactivation, no revocation by the account nor with a reason,
%% no dns-01 or tls-alpn-01, and makes a new account in every issue/4 (it never looks one up).
-mode(compile).

main(Args) ->
    Opts = parse(Args, #{}),
    %% logger writes to standard_io by default; stdout carries the summary alone.
    ok = logger:remove_handler(default),
    ok = logger:add_handler(default, logger_std_h, #{config => #{type => standard_error}}),
    ok = p1_acme:start(),
    ok = httpc:set_options([{socket_opts, tls_options(maps:get(ca, Opts))}]),
    {ok, Version} = application:get_key(p1_acme, vsn),
    Summary0 = #{version => list_to_binary(Version),
                 otp => list_to_binary(erlang:system_info(otp_release))},
    try run(Opts, Summary0) of
        Summary -> print(Summary)
    catch Class:Reason:Stack ->
        print(Summary0#{error => iolist_to_binary(
                                   io_lib:format("~p:~p~n~p", [Class, Reason, lists:sublist(Stack, 5)]))}),
        halt(1)
    end.

%% The ssl options of the library's HTTP client. The test system serves a self-signed
%% certificate, which OTP's ssl refuses as selfsigned_peer even when cacertfile holds it (it wants
%% a chain to an anchor other than the peer): the verify_fun accepts exactly the certificates of
%% --ca for that and fails every other path validation error, as verify_peer alone would.
tls_options(CaFile) ->
    {ok, Pem} = file:read_file(CaFile),
    Pinned = [public_key:pkix_decode_cert(Der, otp)
              || {'Certificate', Der, not_encrypted} <- public_key:pem_decode(Pem)],
    Verify = fun(Cert, {bad_cert, selfsigned_peer} = Reason, State) ->
                     case lists:member(Cert, Pinned) of
                         true -> {valid, State};
                         false -> {fail, Reason}
                     end;
                (_, {bad_cert, _} = Reason, _) -> {fail, Reason};
                (_, {extension, _}, State) -> {unknown, State};
                (_, valid, State) -> {valid, State};
                (_, valid_peer, State) -> {valid, State}
             end,
    [{verify, verify_peer}, {cacertfile, CaFile}, {verify_fun, {Verify, []}}].

parse(["--directory", V | T], M) -> parse(T, M#{directory => V});
parse(["--ca", V | T], M) -> parse(T, M#{ca => V});
parse(["--root", V | T], M) -> parse(T, M#{root => V});
parse(["--webroot", V | T], M) -> parse(T, M#{webroot => V});
parse(["--names", V | T], M) -> parse(T, M#{names => string:split(V, ",", all)});
parse(["--rsa-names", V | T], M) -> parse(T, M#{rsa_names => string:split(V, ",", all)});
parse(["--fail-name", V | T], M) -> parse(T, M#{fail_name => V});
parse(["--out", V | T], M) -> parse(T, M#{out => V});
parse(["--debug" | T], M) -> parse(T, M#{debug => true});
parse([], M) -> M;
parse([Other | _], _) -> erlang:error({bad_argument, Other}).

run(#{directory := Dir} = Opts, Summary) ->
    %% The issuing root: the library checks the chain it downloads against it (validation_result).
    {ok, RootPem} = file:read_file(maps:get(root, Opts)),
    Roots = [public_key:pkix_decode_cert(Der, otp)
             || {'Certificate', Der, not_encrypted} <- public_key:pem_decode(RootPem)],
    Ec = issue(Opts, "ec", maps:get(names, Opts), p1_acme:generate_key(ec), ec, Roots),
    Rsa = issue(Opts, "rsa", maps:get(rsa_names, Opts), p1_acme:generate_key(rsa), rsa, Roots),

    %% RFC 8555 7.6: the library signs revokeCert with the certificate's key (a jwk, no kid).
    #{cert := Cert, cert_key := CertKey} = Ec,
    Revoked = p1_acme:revoke(Dir, Cert, CertKey, options(Opts, [])),
    RevokedAgain = p1_acme:revoke(Dir, Cert, CertKey, options(Opts, [])),

    %% An order whose http-01 is never answered: the library reports the server's problem.
    Failed = p1_acme:issue(Dir, [maps:get(fail_name, Opts)], p1_acme:generate_key(ec),
                           options(Opts, [{contact, [<<"mailto:ops@example.com">>]},
                                          {challenge_fun, fun(_) -> ok end}])),
    Summary#{ec => maps:get(summary, Ec),
             rsa => maps:get(summary, Rsa),
             revoked => result(Revoked),
             revoked_again => result(RevokedAgain),
             challenge_failed => result(Failed)}.

%% One p1_acme:issue/4 with http-01 through the webroot; the chain and both keys go to --out.
issue(#{directory := Dir, webroot := Webroot, out := Out} = Opts, Label, Names, AccKey, CertType, Roots) ->
    put(challenges, []),
    ChallengeFun =
        fun(Challenges) ->
            lists:foreach(
              fun(#{domain := Domain, token := Token, key := KeyAuth}) ->
                  File = filename:join([Webroot, ".well-known", "acme-challenge", Token]),
                  ok = filelib:ensure_dir(File),
                  ok = file:write_file(File, KeyAuth),
                  [_, Thumbprint] = binary:split(KeyAuth, <<".">>),
                  put(challenges, [#{domain => list_to_binary(Domain),
                                     token_in_key => binary:part(KeyAuth, 0, byte_size(Token)) =:= Token,
                                     thumbprint => Thumbprint,
                                     file => File} | get(challenges)])
              end, Challenges)
        end,
    Result = p1_acme:issue(Dir, Names, AccKey,
                           options(Opts, [{contact, [<<"mailto:ops@example.com">>]},
                                          {cert_type, CertType},
                                          {ca_certs, Roots},
                                          {challenge_type, 'http-01'},
                                          {challenge_fun, ChallengeFun}])),
    Challenges = lists:sort(get(challenges)),
    [file:delete(F) || #{file := F} <- Challenges],
    case Result of
        {ok, #{acc_key := AccKey, cert_key := CertKey, cert_chain := [Leaf | _] = Chain} = Ret} ->
            Pem = public_key:pem_encode(
                    [{'Certificate', public_key:pkix_encode('OTPCertificate', C, otp), not_encrypted}
                     || C <- Chain]),
            Base = filename:join(Out, Label),
            ok = file:write_file(Base ++ ".pem", Pem),
            ok = file:write_file(Base ++ "-account.key", key_pem(AccKey)),
            ok = file:write_file(Base ++ ".key", key_pem(CertKey)),
            #{cert => Leaf,
              cert_key => CertKey,
              summary => #{result => ok,
                           account_key => key_type(AccKey),
                           cert_key => key_type(CertKey),
                           chain => length(Chain),
                           validation_result => result(maps:get(validation_result, Ret, undefined)),
                           challenges => [maps:remove(file, C) || C <- Challenges],
                           files => #{cert => list_to_binary(Base ++ ".pem"),
                                      account_key => list_to_binary(Base ++ "-account.key"),
                                      cert_key => list_to_binary(Base ++ ".key")}}};
        {error, Reason} ->
            erlang:error({issue_failed, Label, p1_acme:format_error(Reason)})
    end.

options(#{debug := true}, Opts) ->
    [{timeout, 60000}, {debug_fun, fun(Fmt, Args) -> io:format(standard_error, Fmt ++ "~n", Args) end} | Opts];
options(_, Opts) ->
    [{timeout, 60000} | Opts].

%% What a call returned: ok, valid, or the library's own wording of its error.
result(ok) -> ok;
result(valid) -> valid;
result(undefined) -> null;
result({bad_cert, _} = Reason) -> list_to_binary(p1_acme:format_error(Reason));
result({error, Reason}) -> unicode:characters_to_binary(p1_acme:format_error(Reason));
result({ok, _}) -> unexpected_success.

%% public_key's records (its header is in erlang-dev, which the library does not need).
key_type(Key) when element(1, Key) =:= 'ECPrivateKey' -> ec;
key_type(Key) when element(1, Key) =:= 'RSAPrivateKey' -> rsa.

key_pem(Key) ->
    Type = element(1, Key),
    public_key:pem_encode([public_key:pem_entry_encode(Type, Key)]).

print(Summary) ->
    io:put_chars([jiffy:encode(Summary), $\n]).
