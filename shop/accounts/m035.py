import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_35_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-35-0'
    return [line.qty * factor for line in cart.lines]


def step_35_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-35-1'
    return [line.qty * factor for line in cart.lines]


def step_35_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-35-2'
    return [line.qty * factor for line in cart.lines]


def step_35_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-35-3'
    return [line.qty * factor for line in cart.lines]

