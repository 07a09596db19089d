"""verikern.proofs.deciding"""
