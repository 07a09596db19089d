"""verikern.proofs.reporting"""
