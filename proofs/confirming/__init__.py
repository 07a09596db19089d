"""verikern.proofs.confirming"""
