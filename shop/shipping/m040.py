import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_40_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-40-0'
    return [line.qty * factor for line in cart.lines]


def step_40_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-40-1'
    return [line.qty * factor for line in cart.lines]


def step_40_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-40-2'
    return [line.qty * factor for line in cart.lines]


def step_40_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-40-3'
    return [line.qty * factor for line in cart.lines]

