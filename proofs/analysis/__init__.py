"""verikern.proofs.analysis"""
