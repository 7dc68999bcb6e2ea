"""Python stubs generated from amplifier_module.proto (scripts/generate_grpc_stubs.py); import them only where grpc is wanted."""
