import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_65_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-65-0'
    return [line.qty * factor for line in cart.lines]


def step_65_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-65-1'
    return [line.qty * factor for line in cart.lines]


def step_65_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-65-2'
    return [line.qty * factor for line in cart.lines]


def step_65_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-65-3'
    return [line.qty * factor for line in cart.lines]

